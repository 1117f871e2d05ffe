/** pgpass 1.0.x ships no types: the one call src/team/pg.ts makes. */
declare module 'pgpass' {
  type ConnInfo = { host: string; port: string; database: string; user: string };
  export default function pgpass(conn: ConnInfo, cb: (password: string | undefined) => void): void;
}

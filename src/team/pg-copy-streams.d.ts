/** pg-copy-streams 7.x ships no types: the one call src/team/pg.ts makes (COPY … FROM STDIN as a writable stream). */
declare module 'pg-copy-streams' {
  import type { Writable } from 'node:stream';
  import type { Submittable } from 'pg';
  export type CopyFromStream = Writable & Submittable & { rowCount: number };
  export function from(sql: string): CopyFromStream;
}

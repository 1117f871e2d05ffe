/**
 * The only module that talks to PostgreSQL (the team ledger): `pg` 8.x, the URL read by pg-connection-string (TLS from
 * it: sslmode, sslrootcert, sslcert, sslkey; `sslmode=verify-full` checks the chain and the host name), the password
 * from the URL, else PGPASSWORD, else ~/.pgpass (PGPASSFILE) through `pgpass`: tiergate never stores one. Every
 * message that leaves here is one line with the URL's password taken out (describeTeamError).
 */
import pg from 'pg';
import { parse as parseUrl } from 'pg-connection-string';
import { from as copyFrom } from 'pg-copy-streams';
import pgpass from 'pgpass';
import type { Env } from '../io/paths.js';

export type TeamClient = {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** A statement whose rows are not needed: resolves to the rows it wrote (inserted, updated or deleted). */
  execute(sql: string, params?: unknown[]): Promise<number>;
  /** `COPY … FROM STDIN` (text format) of `data`, already in COPY's text format; resolves to the rows copied. */
  copyIn(sql: string, data: string): Promise<number>;
  /** BEGIN … COMMIT around fn (ROLLBACK when it throws). `readOnly`: a REPEATABLE READ READ ONLY snapshot. */
  transaction<T>(fn: () => Promise<T>, opts?: { readOnly?: boolean }): Promise<T>;
  end(): Promise<void>;
};

export type ConnectOptions = {
  env?: Env;
  connectTimeoutMs?: number;
  /** Server-side limit per statement (0: none); the client gives up a little after it (a server that never answers). */
  statementTimeoutMs?: number;
  /** Epoch ms: nothing (connect, statement, COPY) waits past it; what is in flight then fails and the socket is closed. */
  deadline?: number;
};

/** A failure the user can act on, as one line: what went wrong and where, never a password or a stack. */
export class TeamError extends Error {
  override readonly name = 'TeamError';
  /** The server's SQLSTATE when the server refused a statement (e.g. 22021: a byte sequence it cannot store). */
  readonly sqlstate: string | null;
  constructor(message: string, sqlstate: string | null = null) {
    super(message);
    this.sqlstate = sqlstate;
  }
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/**
 * How long past the server's own statement_timeout the client still waits for an answer: the server cancels the
 * statement itself and says so well within it; silence that long is a server (or a path to it) that stopped answering.
 */
const ANSWER_GRACE_MS = 10_000;
/** The client-side limit of a statement when no statement_timeout is asked for (team init's migrations). */
const DEFAULT_ANSWER_MS = 10 * 60_000;
/** Closing a connection waits this long for the server's goodbye (Terminate is written first), then drops the socket. */
const END_MS = 500;

/** The URL as it may be shown: the password replaced by ***, query parameters kept (they hold no secret but `password`). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.searchParams.has('password')) u.searchParams.set('password', '***');
    return u.toString();
  } catch {
    // Not a URL that parses: show nothing of it.
    return '(unparsable URL)';
  }
}

/** Every form of the URL's password (raw and decoded) taken out of `text`, and any user:password@ left in it. */
export function redactText(text: string, url: string | null): string {
  let out = text;
  if (url) {
    const secrets = new Set<string>();
    try {
      const u = new URL(url);
      if (u.password) secrets.add(u.password).add(decodeURIComponent(u.password));
      const q = u.searchParams.get('password');
      if (q) secrets.add(q);
    } catch {
      /* nothing parsable to take out */
    }
    for (const s of [...secrets].filter((s) => s.length > 0).sort((a, b) => b.length - a.length))
      out = out.split(s).join('***');
  }
  return out.replace(/(\/\/[^/\s:@]*):[^@\s/]*@/g, '$1:***@');
}

const secs = (ms: number) => `${Math.max(0, Math.round(ms / 100) / 10)} s`;

/** host:port/database of the URL, for messages (no user, no password). */
export function serverOf(url: string): string {
  try {
    const c = parseUrl(url);
    return `${c.host || 'localhost'}:${c.port || 5432}/${c.database ?? ''}`;
  } catch {
    return '(unparsable URL)';
  }
}

/** What a pg or socket error means for the person running tiergate, in one line. */
export function describeTeamError(err: unknown, url: string | null): string {
  const e = err as { code?: unknown; message?: unknown; errno?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const raw = typeof e?.message === 'string' && e.message ? e.message : String(err);
  const where = url ? serverOf(url) : 'the team database';
  let text: string;
  if (err instanceof TeamError) text = raw;
  else if (code === 'ECONNREFUSED') text = `cannot connect to ${where}: connection refused`;
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') text = `cannot connect to ${where}: host not found`;
  else if (code === 'ETIMEDOUT' || /timeout expired|timed out|connection timeout/i.test(raw))
    text = `cannot connect to ${where}: timed out`;
  else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') text = `cannot connect to ${where}: host unreachable`;
  else if (code === '28P01' || code === '28000') text = `${where}: ${raw}`;
  else if (/client password must be a string|SASL: SCRAM-SERVER-FIRST-MESSAGE/.test(raw)) {
    text = `${where} asks for a password and none was found (in the URL, PGPASSWORD or ~/.pgpass)`;
  } else if (code === '3D000') text = `${where}: ${raw}`;
  else if (
    /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_)/.test(code) ||
    /certificate|\bSSL\b|\bTLS\b/i.test(raw)
  ) {
    text = `TLS with ${where} failed: ${raw}`;
  } else if (/Connection terminated|ECONNRESET|EPIPE|terminating connection/i.test(`${code} ${raw}`)) {
    text = `connection to ${where} lost: ${raw}`;
  } else text = code && /^[0-9A-Z]{5}$/.test(code) ? `${where}: ${raw} (SQLSTATE ${code})` : `${where}: ${raw}`;
  return redactText(text.replace(/\s*\n\s*/g, ' ').trim(), url);
}

/** pg's client config from the URL: its TLS settings as pg-connection-string reads them (files named there are read). */
function clientConfig(url: string, opts: ConnectOptions): pg.ClientConfig {
  let parsed: ReturnType<typeof parseUrl>;
  try {
    parsed = parseUrl(url);
  } catch (err) {
    throw new TeamError(
      `the team URL does not parse (${redactText(String((err as Error).message ?? err), url)}); expected postgres://user@host:port/database`,
    );
  }
  const env = opts.env ?? process.env;
  const { password, port, host, database, user, ssl, ...rest } = parsed;
  const config: pg.ClientConfig = {
    host: host ?? undefined,
    port: port ? Number(port) : undefined,
    database: database ?? undefined,
    user: user || undefined,
    ssl: ssl as pg.ClientConfig['ssl'],
    application_name: typeof rest.application_name === 'string' ? rest.application_name : 'tiergate',
    // libpq's connect_timeout (seconds) in the URL, else ours: a server that accepts and never answers cannot hang a push.
    connectionTimeoutMillis: Math.max(
      1,
      Math.min(
        Number(rest.connect_timeout) > 0
          ? Number(rest.connect_timeout) * 1000
          : (opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
        opts.deadline === undefined ? Number.POSITIVE_INFINITY : opts.deadline - Date.now(),
      ),
    ),
    keepAlive: true,
    ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
  };
  // pg 8 looks in ~/.pgpass itself only with a deprecation notice (to be removed in pg 9): asked here, only when the
  // server wants a password, in libpq's order.
  const lookup = async (): Promise<string | undefined> =>
    env.PGPASSWORD ||
    (await new Promise<string | undefined>((resolve) => {
      pgpass(
        {
          host: config.host ?? 'localhost',
          port: String(config.port ?? 5432),
          database: config.database ?? '',
          user: config.user ?? '',
        },
        resolve,
      );
    }));
  // undefined (none found) makes pg fail the password exchange, which describeTeamError words as "none was found".
  config.password = password || (lookup as () => Promise<string>);
  return config;
}

export async function connectTeam(url: string, opts: ConnectOptions = {}): Promise<TeamClient> {
  const client = new pg.Client(clientConfig(url, opts));
  // A socket error after connect (server gone) arrives as an event; the query in flight rejects with it.
  let lost: unknown = null;
  client.on('error', (err) => {
    lost = err;
  });
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new TeamError(describeTeamError(err, url));
  }
  // pg's own query_timeout cannot stop a COPY, and statement_timeout is the server's: a server that stopped answering
  // is given up on here, per statement and at the caller's deadline, by closing the socket (which fails the rest).
  const answerMs = opts.statementTimeoutMs ? opts.statementTimeoutMs + ANSWER_GRACE_MS : DEFAULT_ANSWER_MS;
  let gaveUp: TeamError | null = null;
  const drop = () =>
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  const wrap = async <T>(sql: string, p: Promise<T>): Promise<T> => {
    p.catch(() => undefined); // settles after a give-up too; its outcome is no longer anyone's
    const left = opts.deadline === undefined ? answerMs : Math.min(answerMs, opts.deadline - Date.now());
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          const what = sql.trim().split(/\s+/, 1)[0]!.toUpperCase();
          gaveUp ??= new TeamError(
            left > 0
              ? `${serverOf(url)} did not answer within ${secs(left)} (${what}); gave up and closed the connection`
              : `time limit reached before ${serverOf(url)} answered (${what}); gave up and closed the connection`,
          );
          drop();
          reject(gaveUp);
        },
        Math.max(0, left),
      );
    });
    try {
      return await Promise.race([p, silence]);
    } catch (err) {
      if (err instanceof TeamError) throw err;
      if (gaveUp) throw gaveUp;
      const code = (err as { code?: unknown } | null)?.code;
      throw new TeamError(
        describeTeamError(lost ?? err, url),
        !lost && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null,
      );
    } finally {
      clearTimeout(timer);
    }
  };
  const query = async <T>(sql: string, params: unknown[] = []): Promise<T[]> =>
    (await wrap(sql, client.query(sql, params))).rows as T[];
  const execute = async (sql: string, params: unknown[] = []): Promise<number> =>
    (await wrap(sql, client.query(sql, params))).rowCount ?? 0;
  const copyIn = (sql: string, data: string): Promise<number> =>
    wrap(
      sql,
      new Promise<number>((resolve, reject) => {
        const stream = client.query(copyFrom(sql));
        stream.on('error', reject);
        stream.on('finish', () => resolve(stream.rowCount));
        stream.end(data);
      }),
    );
  return {
    query,
    execute,
    copyIn,
    async transaction<T>(fn: () => Promise<T>, o: { readOnly?: boolean } = {}): Promise<T> {
      await query(o.readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
      try {
        const out = await fn();
        await query('COMMIT');
        return out;
      } catch (err) {
        await query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    },
    end: async () => {
      // A server that stopped answering never says goodbye either: its socket is dropped after a short wait.
      if (gaveUp) drop();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        client.end().catch(() => undefined),
        new Promise<void>((r) => {
          timer = setTimeout(() => {
            drop();
            r();
          }, END_MS);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}

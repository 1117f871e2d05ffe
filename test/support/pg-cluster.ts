/**
 * A throwaway PostgreSQL cluster for the team-ledger tests and bench: initdb in a temp dir, the server on a random port
 * on 127.0.0.1 with its unix socket in that dir, password (scram) auth over TCP. initdb and postgres refuse to run as
 * root, so under root both run as `nobody` (the temp dir is chowned to it). Binaries: PG_BIN, else Debian's
 * /usr/lib/postgresql/<major>/bin (the newest), else PATH. Outside CI a missing PostgreSQL skips its tests with the
 * reason printed; under CI it fails them (test/support/ci.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { missing } from './ci.js';

export const SUPERUSER = 'postgres';
export const SUPERUSER_PASSWORD = 'tg-super-secret';

/** The directory holding initdb and postgres, or why there is none. */
export function findPgBin(env: NodeJS.ProcessEnv = process.env): { dir: string } | { missing: string } {
  const has = (dir: string) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres'));
  if (env.PG_BIN)
    return has(env.PG_BIN) ? { dir: env.PG_BIN } : { missing: `PG_BIN=${env.PG_BIN} has no initdb/postgres` };
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const majors = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const m of majors) if (has(join(debian, m, 'bin'))) return { dir: join(debian, m, 'bin') };
  }
  for (const dir of (env.PATH ?? '').split(':').filter(Boolean)) if (has(dir)) return { dir };
  return { missing: 'no initdb/postgres (PG_BIN, /usr/lib/postgresql/*/bin, PATH); apt-get install postgresql' };
}

/**
 * Whether the team tests can run here. Under CI a missing PostgreSQL throws (the file fails); outside it, false with
 * the reason printed once.
 */
export function pgAvailable(): boolean {
  const bin = findPgBin();
  if ('dir' in bin) return true;
  missing('PostgreSQL', bin.missing);
  return false;
}

/** The uid/gid to run the server as: ours, or nobody's when we are root. */
function runAs(): { uid: number; gid: number } | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || !Number.isInteger(gid))
    throw new Error('running as root and there is no user nobody to run PostgreSQL as');
  return { uid, gid };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The postmaster and its backends (children by /proc ppid), each by pid: a crash, not a shutdown. */
function killAll(c: ChildProcess | null): void {
  if (!c?.pid || c.exitCode !== null || c.signalCode !== null) return;
  const children: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      // The command name may hold spaces and parentheses: the ppid is the 2nd field after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === c.pid) children.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  c.kill('SIGKILL');
  for (const pid of children) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }
}

export type PgCluster = {
  port: number;
  dir: string;
  /** postgres://<user>:<password>@127.0.0.1:<port>/<db> */
  url(user?: string, password?: string, db?: string): string;
  /** A superuser client over the unix socket (closed by the caller). */
  admin(db?: string): Promise<pg.Client>;
  /** Runs SQL as the superuser. */
  sql(text: string, params?: unknown[], db?: string): Promise<pg.QueryResult>;
  /** Kills the server at once (SIGKILL to the postmaster and its backends: no shutdown, as a crash would be). */
  kill(): void;
  /** Starts the server again on the same port and data directory. */
  restart(): Promise<void>;
  stop(): Promise<void>;
};

export type ClusterOptions = {
  /** Extra `-c name=value` server settings. */
  settings?: Record<string, string>;
  /** Durable like a real server (fsync on); tests default to fsync off for speed. */
  durable?: boolean;
  /** Files to put in the data directory before start (TLS key and certificates), name -> content. */
  files?: Record<string, { content: string; mode?: number }>;
};

export async function startCluster(opts: ClusterOptions = {}): Promise<PgCluster> {
  const bin = findPgBin();
  if (!('dir' in bin)) throw new Error(bin.missing);
  const as = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'tg-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${SUPERUSER_PASSWORD}\n`, { mode: 0o600 });
  if (as) {
    chownSync(dir, as.uid, as.gid);
    chownSync(pwfile, as.uid, as.gid);
  }
  const spawnOpts = { ...(as ?? {}), env: { ...process.env, LC_ALL: 'C', LANG: 'C' }, cwd: dir };
  const init = spawnSync(
    join(bin.dir, 'initdb'),
    [
      '-D',
      data,
      '-U',
      SUPERUSER,
      '--pwfile',
      pwfile,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--no-instructions',
    ],
    { ...spawnOpts, encoding: 'utf8' },
  );
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr || init.stdout || init.error?.message}`);
  }
  rmSync(pwfile, { force: true });
  for (const [name, f] of Object.entries(opts.files ?? {})) {
    const p = join(data, name);
    writeFileSync(p, f.content, { mode: f.mode ?? 0o600 });
    if (as) chownSync(p, as.uid, as.gid);
  }
  const port = await freePort();
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: dir,
    logging_collector: 'off',
    ...(opts.durable ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
    ...opts.settings,
  };
  const args = ['-D', data, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  let child: ChildProcess | null = null;
  let log = '';
  const start = async () => {
    log = '';
    const c = spawn(join(bin.dir, 'postgres'), args, { ...spawnOpts, stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout!.on('data', (d) => (log = (log + String(d)).slice(-8000)));
    c.stderr!.on('data', (d) => (log = (log + String(d)).slice(-8000)));
    child = c;
    const until = Date.now() + 30_000;
    for (;;) {
      if (c.exitCode !== null) throw new Error(`postgres exited (${c.exitCode}): ${log}`);
      const client = new pg.Client({ host: dir, port, user: SUPERUSER, database: 'postgres' });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.end();
        return;
      } catch {
        await client.end().catch(() => undefined);
        if (Date.now() > until) throw new Error(`postgres did not accept connections within 30 s: ${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const waitExit = (c: ChildProcess | null) =>
    new Promise<void>((r) =>
      c === null || c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r()),
    );
  try {
    await start();
  } catch (err) {
    // A server that would not start leaves nothing behind: not its process, not its directory.
    killAll(child);
    await waitExit(child);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const cluster: PgCluster = {
    port,
    dir,
    url: (user = SUPERUSER, password = SUPERUSER_PASSWORD, db = 'postgres') =>
      `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(db)}`,
    // Over the unix socket (trust): works whatever pg_hba and TLS a test gives TCP.
    admin: async (db = 'postgres') => {
      const c = new pg.Client({ host: dir, port, user: SUPERUSER, database: db });
      await c.connect();
      return c;
    },
    sql: async (text, params, db) => {
      const c = await cluster.admin(db);
      try {
        return await c.query(text, params as unknown[]);
      } finally {
        await c.end();
      }
    },
    kill: () => killAll(child),
    restart: async () => {
      const c = child;
      killAll(c);
      await waitExit(c);
      // A killed postmaster leaves its backends to notice; postgres refuses to start while they hold shared memory.
      const until = Date.now() + 15_000;
      for (;;) {
        try {
          await start();
          return;
        } catch (err) {
          if (Date.now() > until) throw err;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    },
    stop: async () => {
      const c = child;
      // SIGINT: fast shutdown (disconnects clients, no checkpoint wait beyond what is needed).
      c?.kill('SIGINT');
      await Promise.race([waitExit(c), new Promise((r) => setTimeout(r, 10_000))]);
      if (c && c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await waitExit(c);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

/**
 * Opens the ledger: picks the driver for the running runtime, creates the file user-only, switches on WAL and
 * busy_timeout, and applies pending migrations. One call, used by the drainer, scan and report.
 */
import { diagnose, errorText } from '../../io/diagnostics.js';
import { ensureFile, moveFile, restrictToUser } from '../../io/files.js';
import { paths, type Env } from '../../io/paths.js';
import type { SqlDriver } from './driver.js';
import { openBetterSqlite } from './driver-better-sqlite3.js';
import { openBunSqlite } from './driver-bun-sqlite.js';
import { MIGRATIONS } from './schema.js';

export const DEFAULT_BUSY_TIMEOUT_MS = 2000;

/**
 * How long SQLite may wait on another writer's lock in the next statement: the default at most, and never past
 * `deadline` (epoch ms; a hook's observer pass, drain.ts runObserver), so a busy ledger cannot hold a hook past its
 * own deadline: better-sqlite3 waits synchronously, and no timer fires while it does.
 */
export function busyWaitUntil(deadline: number, now: number = Date.now()): number {
  return Math.max(0, Math.floor(Math.min(DEFAULT_BUSY_TIMEOUT_MS, deadline - now)));
}

export function setBusyTimeout(db: SqlDriver, ms: number): void {
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(ms))}`);
}

export type LedgerOptions = {
  /** Explicit file (tests, bench); default paths(env).ledger. */
  file?: string;
  busyTimeoutMs?: number;
  /** Force a driver; default: bun:sqlite inside Bun, better-sqlite3 elsewhere. */
  driver?: 'better-sqlite3' | 'bun:sqlite';
  /** Told when the file was corrupt and set aside: a command says so on stderr (a hook only diagnoses it). */
  onRebuilt?: (aside: string, why: string) => void;
};

export function runtimeDriver(): 'better-sqlite3' | 'bun:sqlite' {
  return (process.versions as Record<string, string | undefined>).bun ? 'bun:sqlite' : 'better-sqlite3';
}

/** SQLite's answers for a file that is not (or no longer) a database: the ledger is set aside and rebuilt. */
const CORRUPT = /SQLITE_(NOTADB|CORRUPT)|file is not a database|database disk image is malformed/;

export function isCorruptLedgerError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return CORRUPT.test(`${String(e?.code ?? '')} ${String(e?.message ?? '')}`);
}

/** Where a corrupt ledger is moved; doctor looks for these to say the ledger was rebuilt. */
export const CORRUPT_SUFFIX = '.corrupt-';

export function openLedger(env: Env = process.env, opts: LedgerOptions = {}): SqlDriver {
  const file = opts.file ?? paths(env).ledger;
  try {
    return openLedgerFile(env, file, opts);
  } catch (err) {
    if (!isCorruptLedgerError(err)) throw err;
    // A truncated or overwritten ledger must not stop every later drain: keep it aside for the user (doctor names
    // it), start a fresh one, and let the spool and `tiergate scan` refill what they can.
    const aside = `${file}${CORRUPT_SUFFIX}${new Date().toISOString().replace(/[:.]/g, '-')}`;
    for (const ext of ['', '-wal', '-shm']) {
      try {
        moveFile(`${file}${ext}`, `${aside}${ext}`);
        // It keeps prompts' metadata: user-only, whatever mode an older tiergate or a copy gave the damaged file.
        restrictToUser(`${aside}${ext}`);
      } catch {
        /* that part did not exist */
      }
    }
    diagnose(
      'error',
      'ledger:open',
      `ledger was corrupt (${errorText(err)}); moved to ${aside}, starting a fresh one`,
      {},
      env,
    );
    const db = openLedgerFile(env, file, opts);
    opts.onRebuilt?.(aside, errorText(err));
    return db;
  }
}

function openLedgerFile(env: Env, file: string, opts: LedgerOptions): SqlDriver {
  // Before SQLite opens anything: it follows links, so a link (or FIFO) as the ledger or its -wal/-shm is refused here
  // (RefusedFile). SQLite copies the main file's mode onto a new -wal/-shm; ones an older tiergate made are restricted.
  for (const f of [`${file}-wal`, `${file}-shm`]) restrictToUser(f);
  ensureFile(file);
  restrictToUser(file);
  const busy = opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const kind = opts.driver ?? runtimeDriver();
  const db =
    kind === 'bun:sqlite'
      ? openBunSqlite(file, { busyTimeoutMs: busy })
      : openBetterSqlite(file, { busyTimeoutMs: busy });
  try {
    db.exec(`PRAGMA busy_timeout = ${busy}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    // Report GROUP BYs sort in temp b-trees: in memory they take ~1/10 of the time they take in temp files.
    db.exec('PRAGMA temp_store = MEMORY');
    db.exec('PRAGMA cache_size = -65536');
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

export function schemaVersion(db: SqlDriver): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_version').get<{ v: number | null }>();
  return row?.v ?? 0;
}

/** Applies every migration newer than the file's version; concurrent openers serialise on BEGIN IMMEDIATE. */
export function migrate(db: SqlDriver, migrations: readonly string[] = MIGRATIONS): number {
  const newer = (v: number) =>
    new Error(`ledger schema ${v} is newer than this tiergate (${migrations.length}): upgrade tiergate`);
  const seen = schemaVersion(db);
  if (seen > migrations.length) throw newer(seen);
  if (seen === migrations.length) return 0;
  return db.transaction(() => {
    const current = schemaVersion(db);
    if (current > migrations.length) throw newer(current);
    for (let v = current + 1; v <= migrations.length; v++) {
      db.exec(migrations[v - 1]!);
      db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(v, Date.now());
    }
    return migrations.length - current;
  });
}

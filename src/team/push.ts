/**
 * `tiergate push`: copies this data dir's ledger (completions and dispatches) into the team's PostgreSQL ledger.
 * Incremental and idempotent: the ledger numbers every insert and update of a row (its change counter, `rev`, ledger
 * migration 8), and a push sends only the rows changed since the numbers the push state (state.ts) holds, in change
 * order, as an upsert keyed by (origin, local dedupe key) that leaves rows whose values did not change as they are. The
 * keys of deleted local rows (a superseded row) are numbered too and deleted from the team's. Each batch is COPYed
 * into a temporary table and upserted from it by one statement, its own transaction, completions and dispatches each
 * over a connection of their own: a push cut short anywhere leaves every committed batch in place and the rest to the
 * next push.
 *
 * Order matters for "a failed push leaves the local ledger untouched": the team database is reached and its schema
 * checked before the ledger is opened (or drained).
 */
import { diagnose } from '../io/diagnostics.js';
import { loadPricer } from '../observer/default-pricer.js';
import { runObserver } from '../collect/drain.js';
import type { SqlDriver } from '../observer/ledger/driver.js';
import type { Pricer } from '../observer/pricing.js';
import { openLedger } from '../observer/ledger/open.js';
import { ledgerText } from '../observer/ledger/text.js';
import { paths, type Env } from '../io/paths.js';
import { connectTeam, TeamError, type TeamClient } from './pg.js';
import {
  pricingSignature,
  readBatch,
  RECORD_KINDS,
  sentColumns,
  type OutRow,
  type PgType,
  type RecordKind,
} from './rows.js';
import { requireTeamSchema, TEAM_SCHEMA } from './schema.js';
import { originId, teamPaths, teamSettings, type TeamSettings } from './settings.js';
import { ledgerIdentity, openPushState, type MarkName, type PushState, type SetAsideRow } from './state.js';

export const DEFAULT_BATCH = 10_000;
/**
 * The server's limit per statement: a batch's COPY or upsert takes seconds; the client gives up shortly after it
 * (team/pg.ts), so one statement a server never answers costs at most this.
 */
const STATEMENT_TIMEOUT_MS = 120_000;

export type PushOptions = {
  env?: Env;
  settings?: TeamSettings;
  /** Drain the spool into the ledger first (as `tiergate report` does). Default true. */
  drain?: boolean;
  /** Forget what was pushed and send every row (the team's upsert keeps it idempotent). */
  full?: boolean;
  batchSize?: number;
  /** Epoch ms: no new batch starts after it; the rest waits for the next push (a partial push). */
  deadline?: number;
  /**
   * Epoch ms: the whole push's limit. Whatever still waits on the server then fails (a server that accepts and never
   * answers, or stops answering mid-push); committed batches stay recorded.
   */
  giveUpAt?: number;
  version?: string;
};

/** `read`: rows changed locally since the last push, all sent; `sent`: those the team database wrote (new or changed). */
export type KindResult = { read: number; sent: number; deleted: number; setAside: number };
export type PushResult = {
  origin: string;
  user: string;
  completions: KindResult;
  dispatches: KindResult;
  /** False when the deadline stopped the push before the end of the ledger. */
  complete: boolean;
  /** Rows set aside so far for this team database (refused by the server), and the latest few. */
  aside: { rows: number; latest: SetAsideRow[] };
  ms: number;
};

export async function pushLedger(opts: PushOptions = {}): Promise<PushResult> {
  const started = Date.now();
  const env = opts.env ?? process.env;
  const settings = opts.settings ?? teamSettings(env);
  if (!settings.url) {
    throw new TeamError(`no team ledger configured: set team.url in ${paths(env).config} (or TIERGATE_TEAM_URL)`);
  }
  const client = await connectTeam(settings.url, {
    env,
    statementTimeoutMs: STATEMENT_TIMEOUT_MS,
    deadline: opts.giveUpAt,
  });
  try {
    // The push state records a batch once its COMMIT returns: that must mean the batch survives a server crash, also on
    // a server (or database) set to synchronous_commit = off, which acknowledges before the WAL is written.
    await client.query('SET synchronous_commit TO on');
    await requireTeamSchema(client);
    // Dispatches go over a connection of their own, at the same time as completions, so the server can write a batch of
    // one kind while it receives the other's and this process reads the next (one connection waits on each in turn).
    const second = await connectTeam(settings.url, {
      env,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      deadline: opts.giveUpAt,
    });
    try {
      await second.query('SET synchronous_commit TO on');
      const [meta] = await client.query<{ value: string }>(
        `SELECT value FROM ${TEAM_SCHEMA}.meta WHERE name = 'ledger_id'`,
      );
      const origin = originId(env);
      const user = settings.user;
      const db = openLedger(env);
      try {
        const pricer = loadPricer(env);
        if (opts.drain ?? true) runObserver(env, pricer, db);
        const state = openPushState(
          teamPaths(env).state,
          meta?.value ?? '',
          { ledger: ledgerIdentity(paths(env).ledger), origin, user },
          opts.full,
        );
        try {
          await client.query(
            `INSERT INTO ${TEAM_SCHEMA}.origins (origin, user_name, tiergate_version) VALUES ($1, $2, $3)
           ON CONFLICT (origin) DO UPDATE SET user_name = excluded.user_name, tiergate_version = excluded.tiergate_version`,
            [origin, user, opts.version ?? null],
          );
          await client.query(stagingDdl(RECORD_KINDS[0]));
          await second.query(stagingDdl(RECORD_KINDS[1]));
          const ctx: Ctx = {
            env,
            asideLogged: 0,
            client,
            db,
            state,
            origin,
            user,
            pricer,
            batch: opts.batchSize ?? DEFAULT_BATCH,
            deadline: opts.deadline ?? null,
          };
          const none = (): KindResult & { complete: boolean } => ({
            read: 0,
            sent: 0,
            deleted: 0,
            setAside: 0,
            complete: false,
          });
          // Savings are priced here: prices that changed since the last push re-price every corrected run. A first push
          // records the prices it sends with at once, so one cut short and finished under other prices re-prices too.
          const pricing = pricingSignature(db, pricer);
          if (state.marks.pricing === null) state.setPricing(pricing);
          const deleted = await pushDeleted(ctx);
          const [runs, opened] = await Promise.allSettled([
            (async () => {
              const completions = deleted.complete
                ? await pushKind(ctx, client, RECORD_KINDS[0], 'completions')
                : none();
              const repriced =
                completions.complete && state.marks.pricing !== pricing
                  ? await pushKind(ctx, client, RECORD_KINDS[0], null)
                  : { read: 0, sent: 0, deleted: 0, setAside: 0, complete: completions.complete };
              return { completions, repriced };
            })(),
            deleted.complete ? pushKind(ctx, second, RECORD_KINDS[1], 'dispatches') : Promise.resolve(none()),
          ]);
          // Each stream stops at its first failure; both have stopped here (what either committed is recorded).
          if (runs.status === 'rejected') throw runs.reason;
          if (opened.status === 'rejected') throw opened.reason;
          const { completions, repriced } = runs.value;
          const dispatches = opened.value;
          const complete = deleted.complete && completions.complete && repriced.complete && dispatches.complete;
          if (complete) {
            state.setPricing(pricing);
            await client.query(`UPDATE ${TEAM_SCHEMA}.origins SET last_push = now() WHERE origin = $1`, [origin]);
          }
          return {
            origin,
            user,
            completions: {
              read: completions.read + repriced.read,
              sent: completions.sent + repriced.sent,
              deleted: deleted.completions,
              setAside: completions.setAside + repriced.setAside,
            },
            dispatches: {
              read: dispatches.read,
              sent: dispatches.sent,
              deleted: deleted.dispatches,
              setAside: dispatches.setAside,
            },
            complete,
            aside: state.asideSummary(),
            ms: Date.now() - started,
          };
        } finally {
          state.close();
        }
      } finally {
        db.close();
      }
    } finally {
      await second.end();
    }
  } finally {
    await client.end();
  }
}

type Ctx = {
  env: Env;
  /** Set-aside rows diagnosed so far in this push. */
  asideLogged: number;
  client: TeamClient;
  db: SqlDriver;
  state: PushState;
  origin: string;
  user: string;
  pricer: Pricer;
  batch: number;
  deadline: number | null;
};

const past = (ctx: Ctx) => ctx.deadline !== null && Date.now() > ctx.deadline;

/**
 * The keys of local rows deleted since the last push, deleted from the team's, unless a row under that key is here
 * again (re-inserted: sent with the changed rows). Few (a row the ledger superseded), so in plain statements.
 */
async function pushDeleted(ctx: Ctx): Promise<{ completions: number; dispatches: number; complete: boolean }> {
  const out = { completions: 0, dispatches: 0, complete: true };
  const next = ctx.db.prepare('SELECT rev, kind, key FROM deleted_rows WHERE rev > ? ORDER BY rev LIMIT ?');
  const still = RECORD_KINDS.map((k) => ctx.db.prepare(`SELECT 1 AS x FROM ${k.table} WHERE dedupe_key = ?`));
  for (;;) {
    if (past(ctx)) return { ...out, complete: false };
    const rows = next.all<{ rev: number; kind: number; key: string }>(ctx.state.marks.deleted, ctx.batch);
    if (rows.length === 0) return out;
    for (const kind of RECORD_KINDS) {
      const keys = rows
        .filter((r) => r.kind === kind.kind && still[kind.kind]!.get(r.key) === undefined)
        .map((r) => ledgerText(r.key, Number.MAX_SAFE_INTEGER));
      if (keys.length === 0) continue;
      await ctx.client.execute(`DELETE FROM ${TEAM_SCHEMA}.${kind.table} WHERE origin = $1 AND key = ANY($2::text[])`, [
        ctx.origin,
        keys,
      ]);
      out[kind.table] += keys.length;
    }
    ctx.state.advance('deleted', rows[rows.length - 1]!.rev);
    if (rows.length < ctx.batch) return out;
  }
}

/**
 * One kind of record, batch by batch in change order, from the push state's mark (`mark` null: every corrected run,
 * from the start, the mark left alone). A batch is COPYed into the staging table, then its upsert runs on the server
 * while the next batch is read here (one upsert in flight on the kind's connection); the mark moves once its commit
 * returned. A batch the server refuses for its data is sent again in halves down to the rows it refuses, which are set
 * aside (salvage): the rest goes in and the mark moves past them.
 */
async function pushKind(
  ctx: Ctx,
  client: TeamClient,
  kind: RecordKind,
  mark: MarkName | null,
): Promise<KindResult & { complete: boolean }> {
  const out = { read: 0, sent: 0, deleted: 0, setAside: 0, complete: true };
  const refused = new Set<OutRow>();
  const aside = (rows: OutRow[], err: unknown) => salvage(ctx, client, kind, rows, err, refused);
  let inFlight: { done: Promise<number>; rev: number; rows: OutRow[] } | null = null;
  const landed = (rows: OutRow[], sent: number, rev: number) => {
    out.sent += sent;
    // A row that went in leaves the set-aside list (it was refused before it changed); one refused now stays on it.
    ctx.state.clearAside(
      kind.kind,
      rows.filter((r) => !refused.has(r)).map((r) => r.key),
    );
    out.setAside += refused.size;
    refused.clear();
    if (mark) ctx.state.advance(mark, rev);
  };
  const settle = async () => {
    if (!inFlight) return;
    const f = inFlight;
    inFlight = null;
    let sent: number;
    try {
      sent = await f.done;
    } catch (err) {
      sent = await aside(f.rows, err);
    }
    landed(f.rows, sent, f.rev);
  };
  let after = mark ? ctx.state.marks[mark] : 0;
  try {
    for (;;) {
      if (past(ctx)) {
        await settle();
        return { ...out, complete: false };
      }
      const read = readBatch(ctx.db, kind, after, ctx.batch, ctx.pricer, mark === null);
      await settle();
      if (read.length === 0) return out;
      after = read[read.length - 1]!.rev;
      // Rows refused as they are now (a push cut short while halving a batch) are not sent again.
      const rows = read.filter((r) => !ctx.state.refusedAsIs(kind.kind, r.key, r.rev));
      try {
        await stage(client, kind, copyData(rows));
        inFlight = { done: client.execute(upsertSql(kind), [ctx.origin, ctx.user]), rev: after, rows };
      } catch (err) {
        landed(rows, await aside(rows, err), after);
      }
      out.read += read.length;
      if (read.length < ctx.batch) {
        await settle();
        return out;
      }
    }
  } finally {
    // A failed batch is not recorded; one still running when something else failed is waited for (not recorded either).
    if (inFlight) await (inFlight as { done: Promise<unknown> }).done.catch(() => undefined);
  }
}

const copyData = (rows: readonly OutRow[]) => {
  let data = '';
  for (const r of rows) data += `${r.line}\n`;
  return data;
};

/**
 * The server refused a statement for the data it carried (SQLSTATE class 22, data exception, or 23, integrity
 * constraint; 54000, a value too large for an index): the batch, not the server or the connection.
 */
const refusedData = (err: unknown): boolean =>
  err instanceof TeamError && err.sqlstate !== null && /^(22|23)|^54000$/.test(err.sqlstate);

/**
 * `rows` after the server refused them as one batch: each half sent on its own, a refused half halved again, down to
 * single rows, which are set aside (at most 2n - 1 statements for n rows). Any other failure (the connection, a
 * permission, a time limit) is the push's and is thrown. Resolves to the rows the server wrote.
 */
async function salvage(
  ctx: Ctx,
  client: TeamClient,
  kind: RecordKind,
  rows: OutRow[],
  err: unknown,
  refused: Set<OutRow>,
): Promise<number> {
  if (!refusedData(err)) throw err;
  if (rows.length === 1) {
    const row = rows[0]!;
    const error = (err as TeamError).message;
    ctx.state.setAside({ kind: kind.kind, key: row.key, rev: row.rev, error, at: Date.now() });
    refused.add(row);
    if (++ctx.asideLogged <= MAX_ASIDE_DIAGNOSTICS)
      diagnose(
        'warn',
        'team.push',
        `${kind.table} row set aside, the server refused it: ${error}`,
        { key: showKey(row.key) },
        ctx.env,
      );
    return 0;
  }
  const mid = rows.length >> 1;
  let sent = 0;
  for (const part of [rows.slice(0, mid), rows.slice(mid)]) {
    try {
      await stage(client, kind, copyData(part));
      sent += await client.execute(upsertSql(kind), [ctx.origin, ctx.user]);
    } catch (e) {
      sent += await salvage(ctx, client, kind, part, e, refused);
    }
  }
  return sent;
}

/** Diagnostic lines per push for set-aside rows (the push status counts them all). */
const MAX_ASIDE_DIAGNOSTICS = 20;

/** A key as shown: printable, at most 200 characters. */
export const showKey = (key: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  (key.length > 200 ? `${key.slice(0, 200)}…` : key).replace(/[\u0000-\u001f\u007f\ufffd]/g, '?');

const PG_TYPE: Record<PgType, string> = {
  text: 'text',
  bigint: 'bigint',
  boolean: 'boolean',
  ms: 'bigint',
  date: 'date',
};
const staging = (kind: RecordKind) => `pg_temp.tiergate_push_${kind.table}`;

/** A kind's staging table: this session's own (temporary), its columns as COPY's lines hold them (times as ms). */
function stagingDdl(kind: RecordKind): string {
  const columns = sentColumns(kind).map((c) => `${c.name} ${PG_TYPE[c.type]}`);
  return `CREATE TEMPORARY TABLE IF NOT EXISTS ${staging(kind).slice('pg_temp.'.length)} (key text NOT NULL, ${columns.join(', ')})`;
}

/** The batch into the emptied staging table (a TRUNCATE: a temporary table is not vacuumed, deleted rows would pile up). */
async function stage(client: TeamClient, kind: RecordKind, data: string): Promise<void> {
  const emptied = client.execute(`TRUNCATE ${staging(kind)}`);
  const copied = client.copyIn(`COPY ${staging(kind)} FROM STDIN`, data);
  await Promise.all([emptied, copied]);
}

/**
 * The staged batch into the team table, ONE statement (its own transaction): new keys inserted, changed rows updated,
 * rows whose values did not change left alone (and not counted). One statement, so the server runs it while this
 * process reads the next batch: a transaction of several statements would wait on this process between them.
 */
function upsertSql(kind: RecordKind): string {
  let sql = UPSERT.get(kind);
  if (sql) return sql;
  const columns = sentColumns(kind);
  const names = columns.map((c) => c.name);
  const compared = ['user_name', ...names];
  const value = (name: string, type: PgType) =>
    type === 'ms' ? `timestamptz 'epoch' + s.${name} * interval '1 millisecond'` : `s.${name}`;
  sql = `INSERT INTO ${TEAM_SCHEMA}.${kind.table} AS t (origin, key, user_name, ${names.join(', ')})
    SELECT $1, s.key, $2, ${columns.map((c) => value(c.name, c.type)).join(', ')} FROM ${staging(kind)} s
    ON CONFLICT (origin, key) DO UPDATE SET ${compared.map((n) => `${n} = excluded.${n}`).join(', ')}, pushed_at = now()
    WHERE (${compared.map((n) => `t.${n}`).join(', ')}) IS DISTINCT FROM (${compared.map((n) => `excluded.${n}`).join(', ')})`;
  UPSERT.set(kind, sql);
  return sql;
}

const UPSERT = new Map<RecordKind, string>();

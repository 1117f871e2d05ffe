/**
 * `tiergate push`: copies this data dir's ledger (completions and dispatches) into the team's PostgreSQL ledger.
 * Incremental and idempotent: rows are read in local id order, each compared by fingerprint with what the push state
 * says was sent (state.ts); only new and changed rows go, as one upsert per batch keyed by (origin, local dedupe key),
 * and a local row that is gone (superseded) is deleted from the team's. Each batch is one statement, so its own
 * transaction: a push cut short anywhere leaves every committed batch in place and the rest to the next push.
 *
 * Order matters for "a failed push leaves the local ledger untouched": the team database is reached and its schema
 * checked before the ledger is opened (or drained).
 */
import { loadPricer } from '../observer/default-pricer.js';
import { runObserver } from '../observer/drain.js';
import type { SqlDriver } from '../observer/ledger/driver.js';
import type { Pricer } from '../observer/pricing.js';
import { openLedger } from '../observer/ledger/open.js';
import { paths, type Env } from '../io/paths.js';
import { connectTeam, TeamError, type TeamClient } from './pg.js';
import { readBatch, RECORD_KINDS, sentColumns, type OutRow, type PgType, type RecordKind } from './rows.js';
import { requireTeamSchema, TEAM_SCHEMA } from './schema.js';
import { originId, teamPaths, teamSettings, type TeamSettings } from './settings.js';
import { ledgerIdentity, openPushState, type PushState, type Pushed } from './state.js';

export const DEFAULT_BATCH = 10_000;

export type PushOptions = {
  env?: Env;
  settings?: TeamSettings;
  /** Drain the spool into the ledger first (as `tiergate report` does). Default true. */
  drain?: boolean;
  /** Forget what was pushed and send every row (the team's upsert keeps it idempotent). */
  full?: boolean;
  batchSize?: number;
  /** Epoch ms: no new batch starts after it (the background push); the rest waits for the next push. */
  deadline?: number;
  version?: string;
};

export type KindResult = { read: number; sent: number; deleted: number };
export type PushResult = {
  origin: string;
  user: string;
  completions: KindResult;
  dispatches: KindResult;
  /** False when the deadline stopped the push before the end of the ledger. */
  complete: boolean;
  ms: number;
};

export async function pushLedger(opts: PushOptions = {}): Promise<PushResult> {
  const started = Date.now();
  const env = opts.env ?? process.env;
  const settings = opts.settings ?? teamSettings(env);
  if (!settings.url) {
    throw new TeamError(`no team ledger configured: set team.url in ${paths(env).config} (or TIERGATE_TEAM_URL)`);
  }
  const client = await connectTeam(settings.url, { env, statementTimeoutMs: 600_000 });
  try {
    // The push state records a batch once its COMMIT returns: that must mean the batch survives a server crash, also on
    // a server (or database) set to synchronous_commit = off, which acknowledges before the WAL is written.
    await client.query('SET synchronous_commit TO on');
    await requireTeamSchema(client);
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
        { ledger: ledgerIdentity(paths(env).ledger), teamLedgerId: meta?.value ?? '', origin },
        opts.full,
      );
      try {
        await client.query(
          `INSERT INTO ${TEAM_SCHEMA}.origins (origin, user_name, tiergate_version) VALUES ($1, $2, $3)
           ON CONFLICT (origin) DO UPDATE SET user_name = excluded.user_name, tiergate_version = excluded.tiergate_version`,
          [origin, user, opts.version ?? null],
        );
        const ctx: Ctx = {
          client,
          db,
          state,
          origin,
          user,
          pricer,
          batch: opts.batchSize ?? DEFAULT_BATCH,
          deadline: opts.deadline ?? null,
        };
        const completions = await pushKind(ctx, RECORD_KINDS[0]);
        const dispatches = completions.complete
          ? await pushKind(ctx, RECORD_KINDS[1])
          : { read: 0, sent: 0, deleted: 0, complete: false };
        const complete = completions.complete && dispatches.complete;
        if (complete)
          await client.query(`UPDATE ${TEAM_SCHEMA}.origins SET last_push = now() WHERE origin = $1`, [origin]);
        const strip = ({ complete: _c, ...k }: KindResult & { complete: boolean }): KindResult => k;
        return {
          origin,
          user,
          completions: strip(completions),
          dispatches: strip(dispatches),
          complete,
          ms: Date.now() - started,
        };
      } finally {
        state.close();
      }
    } finally {
      db.close();
    }
  } finally {
    await client.end();
  }
}

type Ctx = {
  client: TeamClient;
  db: SqlDriver;
  state: PushState;
  origin: string;
  user: string;
  pricer: Pricer;
  batch: number;
  deadline: number | null;
};

/**
 * One kind of record, batch by batch. The next batch is read and fingerprinted while the team database writes the one
 * before (one batch in flight on the one connection); a batch's state is recorded only once its commit returned.
 */
async function pushKind(ctx: Ctx, kind: RecordKind): Promise<KindResult & { complete: boolean }> {
  const out = { read: 0, sent: 0, deleted: 0, complete: true };
  const keyStillLocal = ctx.db.prepare(`SELECT 1 AS x FROM ${kind.table} WHERE dedupe_key = ?`);
  let inFlight: { done: Promise<void>; record: () => void } | null = null;
  const settle = async () => {
    if (!inFlight) return;
    const f = inFlight;
    inFlight = null;
    await f.done;
    f.record();
  };
  let after = 0;
  try {
    for (;;) {
      if (ctx.deadline !== null && Date.now() > ctx.deadline) {
        await settle();
        return { ...out, complete: false };
      }
      const rows = readBatch(ctx.db, kind, after, ctx.batch, ctx.user, ctx.pricer);
      const last = rows.length === ctx.batch ? rows[rows.length - 1]!.id : null;
      const known = new Map(ctx.state.range(kind.kind, after, last).map((p) => [p.id, p.fp]));
      const changed: OutRow[] = [];
      const changedKnown: number[] = [];
      for (const r of rows) {
        const fp = known.get(r.id);
        known.delete(r.id);
        if (fp === r.fp) continue;
        changed.push(r);
        if (fp !== undefined) changedKnown.push(r.id);
      }
      // What the state remembers and the ledger no longer has: a superseded row. Its key goes from the team's too,
      // unless a row under that key is still here (a row re-inserted under a new id is sent as a new one anyway); and
      // a changed row now under another key (an id reused) takes its old key away. Keys are read for these few only.
      const oldKeys = ctx.state.keysOf(kind.kind, [...changedKnown, ...known.keys()]);
      const goneKeys = new Set<string>();
      for (const r of changed) {
        const old = oldKeys.get(r.id);
        if (old !== undefined && old !== r.key) goneKeys.add(old);
      }
      for (const id of known.keys()) {
        const old = oldKeys.get(id);
        if (old !== undefined) goneKeys.add(old);
      }
      for (const r of changed) goneKeys.delete(r.key);
      const deleteKeys = [...goneKeys].filter((key) => keyStillLocal.get(key) === undefined);
      const body = changed.length > 0 ? `[${changed.map((r) => r.json).join(',')}]` : null;
      await settle();
      const sent: Pushed[] = changed.map((r) => ({ id: r.id, key: r.key, fp: r.fp }));
      const gone = [...known.keys()];
      inFlight = {
        done: body !== null || deleteKeys.length > 0 ? sendBatch(ctx, kind, body, deleteKeys) : Promise.resolve(),
        record: () => ctx.state.record(kind.kind, sent, gone),
      };
      out.read += rows.length;
      out.sent += changed.length;
      out.deleted += deleteKeys.length;
      if (last === null) {
        await settle();
        return out;
      }
      after = last;
    }
  } finally {
    // A failed batch is not recorded; one still running when something else failed is waited for (not recorded either).
    if (inFlight) await (inFlight as { done: Promise<void> }).done.catch(() => undefined);
  }
}

/**
 * One batch as ONE statement (its own transaction): the deletions in a CTE, then the upsert of the rows, sent as one JSON
 * array of arrays (JSON.stringify and the server's jsonb parser beat a parameter per column: pg formats array
 * parameters in JavaScript); unchanged rows skip the update. One statement, so the server runs it while this process
 * reads the next batch: a transaction of several statements would wait on this process's event loop between them.
 * A key is never both deleted and upserted in one batch (pushKind).
 */
function batchSql(kind: RecordKind): string {
  const columns = sentColumns(kind);
  const names = columns.map((c) => c.name);
  const compared = ['user_name', ...names];
  const value = (type: PgType, i: number) =>
    type === 'ms' ? `(timestamptz 'epoch' + (e->>${i})::bigint * interval '1 millisecond')` : `(e->>${i})::${type}`;
  return `WITH gone AS (DELETE FROM ${TEAM_SCHEMA}.${kind.table} WHERE origin = $1 AND key = ANY($4::text[]))
    INSERT INTO ${TEAM_SCHEMA}.${kind.table} AS t (origin, key, user_name, ${names.join(', ')})
    SELECT $1, e->>0, $2, ${columns.map((c, i) => value(c.type, i + 1)).join(', ')}
    FROM jsonb_array_elements($3::jsonb) AS e
    ON CONFLICT (origin, key) DO UPDATE SET ${compared.map((n) => `${n} = excluded.${n}`).join(', ')}, pushed_at = now()
    WHERE (${compared.map((n) => `t.${n}`).join(', ')}) IS DISTINCT FROM (${compared.map((n) => `excluded.${n}`).join(', ')})`;
}

const BATCH_SQL = new Map<RecordKind, string>();

async function sendBatch(ctx: Ctx, kind: RecordKind, body: string | null, deleteKeys: string[]): Promise<void> {
  let sql = BATCH_SQL.get(kind);
  if (!sql) BATCH_SQL.set(kind, (sql = batchSql(kind)));
  await ctx.client.query(sql, [ctx.origin, ctx.user, body ?? '[]', deleteKeys]);
}

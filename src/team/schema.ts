/**
 * The team ledger's schema in PostgreSQL (schema `tiergate`), as ordered migrations `tiergate team init` applies, each
 * once, in one transaction under an advisory lock, recorded in tiergate.schema_version. Never edit a shipped
 * migration: append one. PostgreSQL 12 or newer (statement triggers with transition tables, ON CONFLICT).
 *
 * Rows are keyed by (origin, key): origin is one machine's data dir (a random id), key the local ledger's dedupe key,
 * so a push repeated, or a ledger rebuilt and refilled by `tiergate scan`, lands on the same rows. No column holds
 * prompt or result text: the fields `tiergate report --json` is built from, plus ids and short tokens.
 *
 * Reports read two rollups kept by statement-level triggers (one aggregate upsert per pushed batch, not per row):
 * completion_rollup by day, person, origin, harness, agent, tier and model pair; session_rollup by session, person,
 * origin, harness, day and model pair (for --by session). Every rollup key holds the origin, so two machines' pushes
 * never touch the same rollup row. NULL keys are stored as '' (ON CONFLICT needs equal keys to be equal). The same
 * triggers keep `sessions` (project and last activity per session, for --by session) as the local ledger keeps its own.
 */
import { TeamError, type TeamClient } from './pg.js';

export const TEAM_SCHEMA = 'tiergate';

/**
 * Measure -> its contribution from one completions row `c` (names match the local ledger's rollup, plus not_honoured),
 * as migration 1 built the rollups: with `cursor_runs`, runs of a harness named in the SQL. Reports count runs without
 * usage from the rollups' harness key and the registry's list instead (report.ts), and migration 2 drops it.
 */
type Measures = [string, string][];
const MEASURES_V1: Measures = (() => {
  const both = '(c.cost_pico IS NOT NULL AND c.counterfactual_pico IS NOT NULL)';
  return [
    ['runs', '1'],
    ['dispatched', 'c.dispatched::int'],
    ['completed', "(c.status = 'ok')::int"],
    ['pending', "(c.status = 'pending')::int"],
    ['verified', 'c.verified::int'],
    ['input', 'COALESCE(c.input, 0)'],
    ['output', 'COALESCE(c.output, 0)'],
    ['cache_read', 'COALESCE(c.cache_read, 0)'],
    ['cache_write', 'COALESCE(c.cache_write_5m, 0) + COALESCE(c.cache_write_1h, 0)'],
    ['cost_pico', 'COALESCE(c.cost_pico, 0)'],
    ['priced_runs', '(c.cost_pico IS NOT NULL)::int'],
    ['unpriced', '(c.cost_pico IS NULL AND c.input IS NOT NULL)::int'],
    ['no_usage', '(c.input IS NULL)::int'],
    ['cf_pico', `CASE WHEN ${both} THEN c.counterfactual_pico ELSE 0 END`],
    ['cf_cost_pico', `CASE WHEN ${both} THEN c.cost_pico ELSE 0 END`],
    ['comparable', `${both}::int`],
    ['cursor_runs', "(c.harness = 'cursor')::int"],
    ['not_honoured', 'c.not_honoured::int'],
    // What tiergate's corrections saved (report/decision-savings.ts), priced when pushed: dispatches once, runs each.
    ['corrected', '(c.corrected AND NOT c.followup)::int'],
    ['saved_pico', 'COALESCE(c.saved_pico, 0)'],
    ['saved_runs', '(c.saved_pico IS NOT NULL)::int'],
  ];
})();

const MEASURES: Measures = MEASURES_V1.filter(([m]) => m !== 'cursor_runs');

export const ROLLUP_MEASURES = MEASURES.map(([m]) => m);

type Rollup = { table: string; keys: [string, string][] };

/** Rollup key column -> its value from a completions row `c`. */
const COMPLETION_ROLLUP: Rollup = {
  table: 'completion_rollup',
  keys: [
    ['day', 'c.day'],
    ['user_name', 'c.user_name'],
    ['origin', 'c.origin'],
    ['harness', 'c.harness'],
    ['agent', "COALESCE(c.subagent_type, '')"],
    ['tier', "COALESCE(c.tier, '')"],
    ['requested_model', "COALESCE(c.requested_model, '')"],
    ['served_model', "COALESCE(c.served_model, '')"],
  ],
};
const SESSION_ROLLUP: Rollup = {
  table: 'session_rollup',
  keys: [
    ['session_id', "COALESCE(c.session_id, '')"],
    ['user_name', 'c.user_name'],
    ['origin', 'c.origin'],
    ['harness', 'c.harness'],
    ['day', 'c.day'],
    ['requested_model', "COALESCE(c.requested_model, '')"],
    ['served_model', "COALESCE(c.served_model, '')"],
  ],
};

function rollupDdl(r: Rollup): string {
  const keyType = (k: string) => (k === 'day' ? 'date' : 'text');
  return `CREATE TABLE ${TEAM_SCHEMA}.${r.table} (
    ${r.keys.map(([k]) => `${k} ${keyType(k)} NOT NULL`).join(',\n    ')},
    ${MEASURES_V1.map(([m]) => `${m} bigint NOT NULL`).join(',\n    ')},
    PRIMARY KEY (${r.keys.map(([k]) => k).join(', ')})
  );`;
}

/**
 * One statement's rows into every rollup: first summed once at the grain of all the rollups' keys together (a batch
 * of 10,000 runs is a few thousand such groups), then each rollup upserted from those sums; `sources` are (transition
 * table, sign) pairs (the batch is aggregated once, not once per rollup). Sorted by key, so
 * two transactions that ever met on a rollup row would lock in the same order.
 */
function rollupUpserts(rollups: Rollup[], sources: [string, 1 | -1][], measures: Measures): string {
  const names = measures.map(([m]) => m);
  const fine = new Map<string, string>();
  for (const r of rollups) for (const [k, e] of r.keys) fine.set(k, e);
  const fineKeys = [...fine.keys()];
  const rows = sources
    .map(
      ([t, sign]) =>
        `SELECT ${[...fine].map(([k, e]) => `${e} AS ${k}`).join(', ')}, ${measures.map(([m, e]) => `${sign} * (${e}) AS ${m}`).join(', ')} FROM ${t} c`,
    )
    .join('\n        UNION ALL ');
  const upsert = (r: Rollup) => {
    const keys = r.keys.map(([k]) => k);
    return `INSERT INTO ${TEAM_SCHEMA}.${r.table} AS r (${[...keys, ...names].join(', ')})
      SELECT ${keys.join(', ')}, ${names.map((m) => `SUM(${m})`).join(', ')}
      FROM fine GROUP BY ${keys.join(', ')} ORDER BY ${keys.join(', ')}
      ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${names.map((m) => `${m} = r.${m} + excluded.${m}`).join(', ')}`;
  };
  const [last, ...others] = [...rollups].reverse();
  return `WITH fine AS (
      SELECT ${fineKeys.join(', ')}, ${names.map((m) => `SUM(${m}) AS ${m}`).join(', ')}
      FROM (${rows}) x GROUP BY ${fineKeys.join(', ')}
    )${others.map((r, n) => `, up${n} AS (${upsert(r)})`).join('')}
    ${upsert(last!)};`;
}

/**
 * A session's project and last activity from a statement's new completions (`ended_at`) or dispatches (`at`): only ever
 * later, as the local ledger's sessions table (store.ts touchSession).
 */
const sessionsUpsert = (
  time: 'ended_at' | 'at',
) => `INSERT INTO ${TEAM_SCHEMA}.sessions AS s (origin, harness, session_id, user_name, project, last_at)
      SELECT origin, harness, session_id, MAX(user_name), MAX(project), MAX(${time}) FROM new_rows
      WHERE session_id IS NOT NULL GROUP BY origin, harness, session_id ORDER BY origin, harness, session_id
      ON CONFLICT (origin, harness, session_id) DO UPDATE SET user_name = excluded.user_name,
        project = COALESCE(s.project, excluded.project), last_at = GREATEST(s.last_at, excluded.last_at);`;

/** The three completions trigger functions over `measures`; `replace`: over the ones an earlier migration made. */
function rollupFunctions(rollups: Rollup[], measures: Measures, replace: boolean): string {
  const fn = (name: string, sources: [string, 1 | -1][]) => `
  CREATE ${replace ? 'OR REPLACE ' : ''}FUNCTION ${TEAM_SCHEMA}.${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    ${rollupUpserts(rollups, sources, measures)}
    ${sources.some(([t]) => t === 'new_rows') ? sessionsUpsert('ended_at') : ''}
    RETURN NULL;
  END $fn$;`;
  return `
  ${fn('completions_rollup_insert', [['new_rows', 1]])}
  ${fn('completions_rollup_update', [
    ['old_rows', -1],
    ['new_rows', 1],
  ])}
  ${fn('completions_rollup_delete', [['old_rows', -1]])}`;
}

function rollupTriggers(rollups: Rollup[]): string {
  return `${rollupFunctions(rollups, MEASURES_V1, false)}
  CREATE TRIGGER completions_rollup_insert AFTER INSERT ON ${TEAM_SCHEMA}.completions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${TEAM_SCHEMA}.completions_rollup_insert();
  CREATE TRIGGER completions_rollup_update AFTER UPDATE ON ${TEAM_SCHEMA}.completions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${TEAM_SCHEMA}.completions_rollup_update();
  CREATE TRIGGER completions_rollup_delete AFTER DELETE ON ${TEAM_SCHEMA}.completions
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${TEAM_SCHEMA}.completions_rollup_delete();
  CREATE FUNCTION ${TEAM_SCHEMA}.dispatches_sessions() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    ${sessionsUpsert('at')}
    RETURN NULL;
  END $fn$;
  CREATE TRIGGER dispatches_sessions_insert AFTER INSERT ON ${TEAM_SCHEMA}.dispatches
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${TEAM_SCHEMA}.dispatches_sessions();
  CREATE TRIGGER dispatches_sessions_update AFTER UPDATE ON ${TEAM_SCHEMA}.dispatches
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${TEAM_SCHEMA}.dispatches_sessions();`;
}

export const TEAM_MIGRATIONS: readonly string[] = [
  // 1: the pushed rows, the machines that pushed them, and the rollups reports read
  `
  CREATE TABLE ${TEAM_SCHEMA}.meta (name text PRIMARY KEY, value text NOT NULL);
  -- A new database (or a dropped and recreated schema) gets a new id: pushers holding state for another one resend all.
  INSERT INTO ${TEAM_SCHEMA}.meta (name, value) VALUES ('ledger_id', md5(random()::text || clock_timestamp()::text));

  CREATE TABLE ${TEAM_SCHEMA}.origins (
    origin           text PRIMARY KEY,
    user_name        text NOT NULL,
    first_push       timestamptz NOT NULL DEFAULT now(),
    last_push        timestamptz NOT NULL DEFAULT now(),
    tiergate_version text
  );

  CREATE TABLE ${TEAM_SCHEMA}.completions (
    origin               text NOT NULL,
    key                  text NOT NULL,
    user_name            text NOT NULL,
    harness              text NOT NULL,
    session_id           text,
    subagent_type        text,
    project              text,
    tier                 text,
    requested_model      text,
    served_model         text,
    parent_model         text,
    status               text NOT NULL,
    result               text,
    verified             boolean NOT NULL,
    dispatched           boolean NOT NULL,
    followup             boolean NOT NULL,
    not_honoured         boolean NOT NULL,
    corrected            boolean NOT NULL,
    baseline_model       text,
    saved_pico           bigint,
    input                bigint,
    output               bigint,
    cache_read           bigint,
    cache_write_5m       bigint,
    cache_write_1h       bigint,
    reasoning            bigint,
    requests             bigint,
    cost_pico            bigint,
    counterfactual_pico  bigint,
    started_at           timestamptz,
    ended_at             timestamptz NOT NULL,
    day                  date NOT NULL,
    duration_ms          bigint,
    usage_source         text,
    pushed_at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (origin, key)
  );
  CREATE INDEX completions_ended ON ${TEAM_SCHEMA}.completions (ended_at);
  CREATE INDEX completions_session ON ${TEAM_SCHEMA}.completions (session_id);

  CREATE TABLE ${TEAM_SCHEMA}.dispatches (
    origin           text NOT NULL,
    key              text NOT NULL,
    user_name        text NOT NULL,
    harness          text NOT NULL,
    session_id       text,
    project          text,
    at               timestamptz NOT NULL,
    day              date NOT NULL,
    parent_model     text,
    requested_model  text,
    requested_agent  text,
    requested_tier   text,
    subagent_type    text,
    action           text,
    reason           text,
    tier             text,
    effective_model  text,
    enforcement      text,
    source           text,
    completed        boolean NOT NULL,
    completion_key   text,
    pushed_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (origin, key)
  );
  -- Reports add the dispatches that never completed (denied, or still running): few, found through this index.
  CREATE INDEX dispatches_open ON ${TEAM_SCHEMA}.dispatches (at) WHERE NOT completed;
  CREATE INDEX dispatches_at ON ${TEAM_SCHEMA}.dispatches (at);

  CREATE TABLE ${TEAM_SCHEMA}.sessions (
    origin      text NOT NULL,
    harness     text NOT NULL,
    session_id  text NOT NULL,
    user_name   text NOT NULL,
    project     text,
    last_at     timestamptz NOT NULL,
    PRIMARY KEY (origin, harness, session_id)
  );
  CREATE INDEX sessions_id ON ${TEAM_SCHEMA}.sessions (session_id);

  ${rollupDdl(COMPLETION_ROLLUP)}
  ${rollupDdl(SESSION_ROLLUP)}
  ${rollupTriggers([COMPLETION_ROLLUP, SESSION_ROLLUP])}
  `,
  // 2: the rollups stop counting one harness by name (cursor_runs): reports count runs without usage by the rollups'
  // harness key and the registry's list of harnesses that report none, a parameter. The trigger functions are replaced
  // first (they name the column), then the column goes.
  `
  ${rollupFunctions([COMPLETION_ROLLUP, SESSION_ROLLUP], MEASURES, true)}
  ALTER TABLE ${TEAM_SCHEMA}.completion_rollup DROP COLUMN cursor_runs;
  ALTER TABLE ${TEAM_SCHEMA}.session_rollup DROP COLUMN cursor_runs;
  `,
  // 3: the decision record (issue 29; the local ledger's migration 10): on each dispatch, the model the child would
  // have run on without tiergate and the link that gave it, the decision, what a correction set and both models' rates
  // at decision time, and how its completion was joined; on each completion, whether its saving was priced from the
  // record or by the old estimate. Additive, nullable: rows pushed before keep NULL (their saving is the estimate).
  `
  ALTER TABLE ${TEAM_SCHEMA}.dispatches ADD COLUMN without_model text, ADD COLUMN without_from text,
    ADD COLUMN parent_from text, ADD COLUMN decision text, ADD COLUMN to_value text, ADD COLUMN to_model text,
    ADD COLUMN without_rates text, ADD COLUMN chosen_rates text, ADD COLUMN budget text, ADD COLUMN join_method text;
  ALTER TABLE ${TEAM_SCHEMA}.completions ADD COLUMN saved_basis text, ADD COLUMN corrected_to text;
  `,
];

export const TEAM_SCHEMA_VERSION = TEAM_MIGRATIONS.length;

/** Any fixed pair of ints: every tiergate serialises its migrations on it. */
const MIGRATE_LOCK = [0x7467, 0x6d69] as const;

/** The schema's version in the team database: 0 when tiergate's schema is not there yet. */
export async function teamSchemaVersion(db: TeamClient): Promise<number> {
  const [exists] = await db.query<{ t: string | null }>(
    `SELECT to_regclass('${TEAM_SCHEMA}.schema_version')::text AS t`,
  );
  if (!exists?.t) return 0;
  const [row] = await db.query<{ v: number | null }>(`SELECT MAX(version) AS v FROM ${TEAM_SCHEMA}.schema_version`);
  return row?.v ?? 0;
}

export type MigrateResult = { from: number; to: number };

/** Applies every migration newer than the database's, in one transaction; concurrent inits wait on the lock. */
export async function migrateTeam(
  db: TeamClient,
  migrations: readonly string[] = TEAM_MIGRATIONS,
): Promise<MigrateResult> {
  return db.transaction(async () => {
    await db.query('SELECT pg_advisory_xact_lock($1, $2)', [...MIGRATE_LOCK]);
    await db.query(`CREATE SCHEMA IF NOT EXISTS ${TEAM_SCHEMA}`);
    await db.query(
      `CREATE TABLE IF NOT EXISTS ${TEAM_SCHEMA}.schema_version (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const from = await teamSchemaVersion(db);
    if (from > migrations.length) throw newerSchema(from, migrations.length);
    for (let v = from + 1; v <= migrations.length; v++) {
      await db.query(migrations[v - 1]!);
      await db.query(`INSERT INTO ${TEAM_SCHEMA}.schema_version (version) VALUES ($1)`, [v]);
    }
    return { from, to: migrations.length };
  });
}

const newerSchema = (seen: number, known: number) =>
  new TeamError(
    `the team database's tiergate schema is version ${seen}, newer than this tiergate knows (${known}): upgrade tiergate`,
  );

/** For push and report: the schema must be exactly the one this tiergate writes and reads. */
export async function requireTeamSchema(db: TeamClient): Promise<void> {
  const v = await teamSchemaVersion(db);
  if (v === TEAM_SCHEMA_VERSION) return;
  if (v > TEAM_SCHEMA_VERSION) throw newerSchema(v, TEAM_SCHEMA_VERSION);
  throw new TeamError(
    v === 0
      ? 'the team database has no tiergate schema yet: run `tiergate team init` (as a role that may create a schema)'
      : `the team database's tiergate schema is version ${v}, this tiergate needs ${TEAM_SCHEMA_VERSION}: run \`tiergate team init\``,
  );
}

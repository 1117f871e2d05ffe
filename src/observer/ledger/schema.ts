/**
 * Ledger schema, as an ordered list of migrations. Each runs once, inside a transaction, and bumps
 * `schema_version`. Never edit a shipped migration: append a new one.
 *
 * Privacy: no column holds prompt, brief or result text. Outcomes are stored as short tokens only.
 * Money: cost columns are exact integers in pico-USD (1e-12 USD); NULL means unpriced, never $0.
 */
/** Affirmative `Verified:` tokens (outcome.ts lower-cases them). Frozen: migration 2 bakes them into its triggers. */
export const VERIFIED_YES = ['yes', 'y', 'true', 'pass', 'passed', 'tests', 'ok', 'verified'] as const;

/**
 * Rollup key columns; NULL is stored as '' because SQLite's UNIQUE treats NULLs as distinct (no upsert on them).
 * Two rollups: per session (for --by session, --session, --project) and global (everything else, far fewer rows).
 */
export const ROLLUP_KEYS = [
  'day',
  'harness',
  'session_id',
  'project',
  'subagent_type',
  'tier',
  'requested_model',
  'served_model',
] as const;
export const GLOBAL_ROLLUP_KEYS = [
  'day',
  'harness',
  'subagent_type',
  'tier',
  'requested_model',
  'served_model',
] as const;
/**
 * Third rollup (migration 6), for --by session: only what that view groups and filters by, session first so its GROUP
 * BYs stream in key order. The per-session rollup also splits each session by project, agent type and tier: on a
 * million runs that is 4x the rows, each read and sorted by every --by session.
 */
export const SESSION_ROLLUP_KEYS = ['session_id', 'requested_model', 'served_model', 'day', 'harness'] as const;
/** Completion columns a session-rollup row depends on: other updates (parent model, tier, join ids) skip its trigger. */
const SESSION_ROLLUP_INPUTS = [
  ...SESSION_ROLLUP_KEYS,
  'dispatch_id',
  'status',
  'verified',
  'input',
  'output',
  'cache_read',
  'cache_write_5m',
  'cache_write_1h',
  'cost_pico',
  'counterfactual_pico',
  'followup',
] as const;
type Keys = readonly string[];

/**
 * Rollup definitions by the migration that built them: 2 counted every joined completion as a dispatch; 4 counts a
 * child's follow-up turns (Codex followup_task) as runs of the same dispatch, not as more dispatches; 11 drops the
 * measure that counted one harness by name (reports count runs without usage by the rollups' harness key instead).
 */
type RollupVersion = 2 | 4 | 11;

/** Measure -> its contribution from one completion row `r`. Sums of pico-USD stay integers (int64 holds $9.2M). */
function rollupMeasures(r: string, version: RollupVersion = 11): [string, string][] {
  const verified = VERIFIED_YES.map((v) => `'${v}'`).join(', ');
  const both = `(${r}.cost_pico IS NOT NULL AND ${r}.counterfactual_pico IS NOT NULL)`;
  return [
    ['runs', '1'],
    [
      'dispatched',
      version === 2 ? `(${r}.dispatch_id IS NOT NULL)` : `(${r}.dispatch_id IS NOT NULL AND ${r}.followup = 0)`,
    ],
    ['completed', `(${r}.status = 'ok')`],
    ['pending', `(${r}.status = 'pending')`],
    ['verified', `COALESCE(${r}.verified IN (${verified}), 0)`],
    ['input', `COALESCE(${r}.input, 0)`],
    ['output', `COALESCE(${r}.output, 0)`],
    ['cache_read', `COALESCE(${r}.cache_read, 0)`],
    ['cache_write', `COALESCE(${r}.cache_write_5m, 0) + COALESCE(${r}.cache_write_1h, 0)`],
    ['cost_pico', `COALESCE(${r}.cost_pico, 0)`],
    ['priced_runs', `(${r}.cost_pico IS NOT NULL)`],
    ['unpriced', `(${r}.cost_pico IS NULL AND ${r}.input IS NOT NULL)`],
    ['no_usage', `(${r}.input IS NULL)`],
    ['cf_pico', `CASE WHEN ${both} THEN ${r}.counterfactual_pico ELSE 0 END`],
    ['cf_cost_pico', `CASE WHEN ${both} THEN ${r}.cost_pico ELSE 0 END`],
    ['comparable', `${both}`],
    // Shipped in migrations 2 to 10 (frozen text): runs of the one harness without usage then, by name. Migration 11
    // drops it.
    ...(version < 11 ? ([['cursor_runs', `(${r}.harness = 'cursor')`]] as [string, string][]) : []),
  ];
}

function rollupUpsert(table: string, keys: Keys, r: 'NEW' | 'OLD', sign: 1 | -1, version: RollupVersion): string {
  const measures = rollupMeasures(r, version);
  return `INSERT INTO ${table} (${[...keys, ...measures.map(([m]) => m)].join(', ')})
    VALUES (${[...keys.map((k) => `COALESCE(${r}.${k}, '')`), ...measures.map(([, e]) => `${sign} * (${e})`)].join(', ')})
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${measures.map(([m]) => `${m} = ${m} + excluded.${m}`).join(', ')};`;
}

function rollupDdl(table: string, keys: Keys, version: RollupVersion): string {
  const measures = rollupMeasures('c', version);
  return `
  CREATE TABLE ${table} (
    ${keys.map((k) => `${k} TEXT NOT NULL`).join(',\n    ')},
    ${measures.map(([m]) => `${m} INTEGER NOT NULL`).join(',\n    ')},
    PRIMARY KEY (${keys.join(', ')})
  ) WITHOUT ROWID;`;
}

function rollupTable(table: string, keys: Keys, version: RollupVersion): string {
  const measures = rollupMeasures('c', version);
  return `${rollupDdl(table, keys, version)}
  INSERT INTO ${table} (${[...keys, ...measures.map(([m]) => m)].join(', ')})
    SELECT ${keys.map((k) => `COALESCE(c.${k}, '')`).join(', ')}, ${measures.map(([, e]) => `SUM(${e})`).join(', ')}
    FROM completions c GROUP BY ${keys.map((k) => `COALESCE(c.${k}, '')`).join(', ')};`;
}

function rollupTriggers(version: RollupVersion): string {
  const both = (r: 'NEW' | 'OLD', sign: 1 | -1) =>
    `${rollupUpsert('completion_rollup', ROLLUP_KEYS, r, sign, version)} ${rollupUpsert('completion_rollup_global', GLOBAL_ROLLUP_KEYS, r, sign, version)}`;
  return `CREATE TRIGGER completions_rollup_insert AFTER INSERT ON completions BEGIN ${both('NEW', 1)} END;
  CREATE TRIGGER completions_rollup_delete AFTER DELETE ON completions BEGIN ${both('OLD', -1)} END;
  CREATE TRIGGER completions_rollup_update AFTER UPDATE ON completions BEGIN ${both('OLD', -1)} ${both('NEW', 1)} END;
  `;
}

function rollupMigration(version: RollupVersion): string {
  return `
  ${rollupTable('completion_rollup', ROLLUP_KEYS, version)}
  ${rollupTable('completion_rollup_global', GLOBAL_ROLLUP_KEYS, version)}
  ${rollupTriggers(version)}`;
}

/** Filled from completion_rollup (its keys are a superset; sums of sums are exact), not by re-reading every completion. */
function sessionRollupMigration(): string {
  const keys = SESSION_ROLLUP_KEYS.join(', ');
  const upsert = (r: 'NEW' | 'OLD', sign: 1 | -1) => rollupUpsert('session_rollup', SESSION_ROLLUP_KEYS, r, sign, 4);
  const measures = rollupMeasures('c', 4).map(([m]) => m);
  return `${rollupDdl('session_rollup', SESSION_ROLLUP_KEYS, 4)}
  INSERT INTO session_rollup (${keys}, ${measures.join(', ')})
    SELECT ${keys}, ${measures.map((m) => `SUM(${m})`).join(', ')}
    FROM completion_rollup GROUP BY ${keys} HAVING SUM(runs) <> 0;
  CREATE TRIGGER completions_session_rollup_insert AFTER INSERT ON completions BEGIN ${upsert('NEW', 1)} END;
  CREATE TRIGGER completions_session_rollup_delete AFTER DELETE ON completions BEGIN ${upsert('OLD', -1)} END;
  CREATE TRIGGER completions_session_rollup_update AFTER UPDATE OF ${SESSION_ROLLUP_INPUTS.join(', ')} ON completions
    BEGIN ${upsert('OLD', -1)} ${upsert('NEW', 1)} END;
  `;
}

/** Completion columns the two older rollups read: other updates (a change counter, join ids, paths) skip their trigger. */
const ROLLUP_INPUTS = [...new Set([...ROLLUP_KEYS, ...SESSION_ROLLUP_INPUTS])] as const;

/**
 * Migration 8: a change counter for `tiergate push` (src/team/push.ts), so a push reads only the rows that changed
 * since the last one instead of the whole ledger. `change_seq` holds the last number given; triggers give every
 * completion and dispatch a new `rev` when it is inserted or updated (AFTER triggers: SQLite's BEFORE triggers cannot
 * set NEW), and a deleted row's key a new number in `deleted_rows`. Numbers only grow (a counter row, not MAX(rev): a
 * deleted top row would hand its number out again), and writers are serialised, so a reader that has seen every row
 * up to N sees any later change above N. Rows from before this keep `rev` NULL and read as their id (the counter
 * starts above every id): no backfill, only the indexes are built.
 *
 * What a pushed completion says also depends on its dispatch (action, the models a correction is measured against)
 * and on a dispatch naming it as ignored: such dispatch updates give the completions they touch a new number too
 * (setting `rev` NULL, which their own update trigger turns into the next number, one each). The older rollup's update
 * trigger is narrowed to the columns it reads, so setting `rev` does not subtract and re-add every row it touches.
 */
function changeCounterMigration(): string {
  const LINKED = ['action', 'requested_model', 'parent_model', 'enforcement', 'completion_id'];
  const bump = (table: string) => `UPDATE change_seq SET n = n + 1;
    UPDATE ${table} SET rev = (SELECT n FROM change_seq) WHERE id = NEW.id;`;
  const gone = (kind: 0 | 1) => `UPDATE change_seq SET n = n + 1;
    INSERT INTO deleted_rows (rev, kind, key) VALUES ((SELECT n FROM change_seq), ${kind}, OLD.dedupe_key);`;
  const both = (r: 'NEW' | 'OLD', sign: 1 | -1) =>
    `${rollupUpsert('completion_rollup', ROLLUP_KEYS, r, sign, 4)} ${rollupUpsert('completion_rollup_global', GLOBAL_ROLLUP_KEYS, r, sign, 4)}`;
  return `
  DROP TRIGGER completions_rollup_update;
  CREATE TRIGGER completions_rollup_update AFTER UPDATE OF ${ROLLUP_INPUTS.join(', ')} ON completions
    BEGIN ${both('OLD', -1)} ${both('NEW', 1)} END;
  ALTER TABLE completions ADD COLUMN rev INTEGER;
  ALTER TABLE dispatches ADD COLUMN rev INTEGER;
  CREATE TABLE change_seq (n INTEGER NOT NULL);
  INSERT INTO change_seq (n) SELECT MAX(COALESCE((SELECT MAX(id) FROM completions), 0), COALESCE((SELECT MAX(id) FROM dispatches), 0));
  CREATE TABLE deleted_rows (rev INTEGER PRIMARY KEY, kind INTEGER NOT NULL, key TEXT NOT NULL);
  CREATE INDEX completions_rev ON completions (COALESCE(rev, id));
  CREATE INDEX dispatches_rev ON dispatches (COALESCE(rev, id));
  CREATE TRIGGER completions_rev_insert AFTER INSERT ON completions BEGIN ${bump('completions')} END;
  CREATE TRIGGER completions_rev_update AFTER UPDATE ON completions WHEN NEW.rev IS OLD.rev OR NEW.rev IS NULL
    BEGIN ${bump('completions')} END;
  CREATE TRIGGER completions_rev_delete AFTER DELETE ON completions BEGIN ${gone(0)} END;
  CREATE TRIGGER dispatches_rev_insert AFTER INSERT ON dispatches BEGIN ${bump('dispatches')} END;
  CREATE TRIGGER dispatches_rev_update AFTER UPDATE ON dispatches WHEN NEW.rev IS OLD.rev OR NEW.rev IS NULL
    BEGIN ${bump('dispatches')} END;
  CREATE TRIGGER dispatches_rev_delete AFTER DELETE ON dispatches BEGIN ${gone(1)} END;
  CREATE TRIGGER dispatches_rev_linked AFTER UPDATE OF ${LINKED.join(', ')} ON dispatches
    WHEN ${LINKED.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(' OR ')} BEGIN
    UPDATE completions SET rev = NULL WHERE dispatch_id = NEW.id OR id = NEW.completion_id OR id = OLD.completion_id;
  END;
  `;
}

/**
 * Migration 11: the rollups' `cursor_runs` measure (one harness's runs, by name) goes; reports count runs without usage
 * from the rollups' harness key and the registry's list of harnesses that report none (report/query.ts), as the team
 * ledger has since its migration 2. Every rollup trigger names the column, so they are dropped first and rebuilt as
 * they were (migration 4's measures, migration 8's narrowed update triggers) without it. The rollups' other sums are
 * untouched: dropping a column of a few thousand rollup rows, no completion is read.
 */
function noHarnessMeasureMigration(): string {
  const both = (r: 'NEW' | 'OLD', sign: 1 | -1) =>
    `${rollupUpsert('completion_rollup', ROLLUP_KEYS, r, sign, 11)} ${rollupUpsert('completion_rollup_global', GLOBAL_ROLLUP_KEYS, r, sign, 11)}`;
  const session = (r: 'NEW' | 'OLD', sign: 1 | -1) => rollupUpsert('session_rollup', SESSION_ROLLUP_KEYS, r, sign, 11);
  const triggers = ['rollup', 'session_rollup'].flatMap((t) =>
    ['insert', 'delete', 'update'].map((op) => `DROP TRIGGER completions_${t}_${op};`),
  );
  return `
  ${triggers.join('\n  ')}
  ALTER TABLE completion_rollup DROP COLUMN cursor_runs;
  ALTER TABLE completion_rollup_global DROP COLUMN cursor_runs;
  ALTER TABLE session_rollup DROP COLUMN cursor_runs;
  CREATE TRIGGER completions_rollup_insert AFTER INSERT ON completions BEGIN ${both('NEW', 1)} END;
  CREATE TRIGGER completions_rollup_delete AFTER DELETE ON completions BEGIN ${both('OLD', -1)} END;
  CREATE TRIGGER completions_rollup_update AFTER UPDATE OF ${ROLLUP_INPUTS.join(', ')} ON completions
    BEGIN ${both('OLD', -1)} ${both('NEW', 1)} END;
  CREATE TRIGGER completions_session_rollup_insert AFTER INSERT ON completions BEGIN ${session('NEW', 1)} END;
  CREATE TRIGGER completions_session_rollup_delete AFTER DELETE ON completions BEGIN ${session('OLD', -1)} END;
  CREATE TRIGGER completions_session_rollup_update AFTER UPDATE OF ${SESSION_ROLLUP_INPUTS.join(', ')} ON completions
    BEGIN ${session('OLD', -1)} ${session('NEW', 1)} END;
  `;
}

export const MIGRATIONS: readonly string[] = [
  // 1: initial schema
  `
  CREATE TABLE sessions (
    harness    TEXT NOT NULL,
    session_id TEXT NOT NULL,
    project    TEXT,
    first_at   INTEGER NOT NULL,
    last_at    INTEGER NOT NULL,
    PRIMARY KEY (harness, session_id)
  ) WITHOUT ROWID;

  CREATE TABLE dispatches (
    id                  INTEGER PRIMARY KEY,
    dedupe_key          TEXT NOT NULL UNIQUE,
    harness             TEXT NOT NULL,
    session_id          TEXT,
    call_id             TEXT,
    at                  INTEGER NOT NULL,
    project             TEXT,
    parent_model        TEXT,
    parent_model_source TEXT,
    requested_model     TEXT,
    requested_agent     TEXT,
    requested_tier      TEXT,
    subagent_type       TEXT,
    action              TEXT,
    reason              TEXT,
    tier                TEXT,
    effective_model     TEXT,
    catalog_version     TEXT,
    escalation_from     TEXT,
    child_agent_id      TEXT,
    completion_id       INTEGER,
    source              TEXT NOT NULL
  );
  CREATE INDEX dispatches_open ON dispatches (at) WHERE completion_id IS NULL;
  CREATE INDEX dispatches_child ON dispatches (harness, child_agent_id) WHERE child_agent_id IS NOT NULL;
  CREATE INDEX dispatches_call ON dispatches (harness, call_id);
  CREATE INDEX dispatches_at ON dispatches (at);

  CREATE TABLE completions (
    id                   INTEGER PRIMARY KEY,
    dedupe_key           TEXT NOT NULL UNIQUE,
    harness              TEXT NOT NULL,
    session_id           TEXT,
    call_id              TEXT,
    agent_id             TEXT,
    dispatch_id          INTEGER,
    subagent_type        TEXT,
    project              TEXT,
    requested_model      TEXT,
    served_model         TEXT,
    parent_model         TEXT,
    tier                 TEXT,
    input                INTEGER,
    output               INTEGER,
    cache_read           INTEGER,
    cache_write_5m       INTEGER,
    cache_write_1h       INTEGER,
    reasoning            INTEGER,
    requests             INTEGER,
    cost_pico            INTEGER,
    cost_catalog_version TEXT,
    priced_model         TEXT,
    counterfactual_pico  INTEGER,
    counterfactual_model TEXT,
    counterfactual_catalog_version TEXT,
    status               TEXT NOT NULL,
    result               TEXT,
    verified             TEXT,
    escalation_from      TEXT,
    started_at           INTEGER,
    ended_at             INTEGER NOT NULL,
    day                  TEXT NOT NULL,
    duration_ms          INTEGER,
    usage_source         TEXT NOT NULL,
    transcript_path      TEXT,
    incomplete           INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX completions_ended ON completions (ended_at);
  CREATE INDEX completions_call ON completions (harness, call_id);
  CREATE INDEX completions_dispatch ON completions (dispatch_id) WHERE dispatch_id IS NOT NULL;
  CREATE INDEX completions_pending ON completions (status) WHERE status = 'pending';

  CREATE TABLE requests (
    harness        TEXT NOT NULL,
    key            TEXT NOT NULL,
    session_id     TEXT,
    agent_id       TEXT,
    project        TEXT,
    model          TEXT,
    at             INTEGER,
    sidechain      INTEGER NOT NULL,
    input          INTEGER NOT NULL,
    output         INTEGER NOT NULL,
    cache_read     INTEGER NOT NULL,
    cache_write_5m INTEGER NOT NULL,
    cache_write_1h INTEGER NOT NULL,
    reasoning      INTEGER NOT NULL,
    cost_pico      INTEGER,
    catalog_version TEXT,
    PRIMARY KEY (harness, key)
  ) WITHOUT ROWID;
  CREATE INDEX requests_agent ON requests (harness, session_id, agent_id);

  CREATE TABLE scanned_files (
    path     TEXT PRIMARY KEY,
    size     INTEGER NOT NULL,
    mtime_ms INTEGER NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE diagnostics (
    id      INTEGER PRIMARY KEY,
    at      INTEGER NOT NULL,
    level   TEXT NOT NULL,
    origin  TEXT NOT NULL,
    message TEXT NOT NULL
  );
  `,
  // 2: per-day rollup of completions, kept by triggers, so a report over a million runs reads thousands of rows
  rollupMigration(2),
  // 3: partial indexes over the rows the observer pass still has work on, so a drain on a big ledger touches only them
  `
  CREATE INDEX completions_unpriced ON completions (cost_catalog_version) WHERE input IS NOT NULL AND cost_pico IS NULL;
  CREATE INDEX completions_no_counterfactual ON completions (counterfactual_catalog_version)
    WHERE input IS NOT NULL AND parent_model IS NOT NULL AND counterfactual_pico IS NULL;
  CREATE INDEX completions_unjoined ON completions (harness, call_id) WHERE dispatch_id IS NULL AND call_id IS NOT NULL;
  CREATE INDEX completions_no_call ON completions (harness, agent_id) WHERE call_id IS NULL AND agent_id IS NOT NULL;
  CREATE INDEX completions_joined_gaps ON completions (dispatch_id)
    WHERE dispatch_id IS NOT NULL AND (parent_model IS NULL OR tier IS NULL);
  `,
  // 4: one row per child TURN. Codex children can be sent follow-up tasks; each turn completes on its own (turn_id), and
  // a follow-up turn is another run of the same dispatch (followup = 1), so the rollups stop counting it as a dispatch.
  // Rows written before this keep their key (codex:agent:<id>) and a NULL turn_id. Every existing row has followup = 0,
  // so the rollups' sums are already right under the new measure: only the triggers change (no rebuild; O(1) on any
  // ledger, where a rebuild took 5.5 s per million rows).
  `
  ALTER TABLE completions ADD COLUMN turn_id TEXT;
  ALTER TABLE completions ADD COLUMN followup INTEGER NOT NULL DEFAULT 0;
  DROP TRIGGER completions_rollup_insert;
  DROP TRIGGER completions_rollup_delete;
  DROP TRIGGER completions_rollup_update;
  ${rollupTriggers(4)}
  `,
  // 5: the late-flush pass re-reads only pending rows with a transcript; through the old index, pending rows without
  // one (thousands on a big ledger) were each fetched from the table on every CLI run just to be skipped
  `
  DROP INDEX completions_pending;
  CREATE INDEX completions_pending_reread ON completions (status) WHERE status = 'pending' AND transcript_path IS NOT NULL;
  `,
  // 6: a rollup keyed only by what --by session needs (session, model pair, day, harness), kept by triggers
  sessionRollupMigration(),
  // 7: verified enforcement (observer/enforcement.ts): did the child run on the model tiergate decided? On the dispatch
  // row, which holds the decision and has no rollup triggers: classifying a row costs one plain UPDATE. Only
  // corrections are ever set (NULL elsewhere reads as not-checked); corrections from before this are checked by the next
  // observer pass like new ones, in bounded batches through the first index (its order is the pass's cursor). No
  // backfill UPDATE: the migration only reads dispatches, to build three partial indexes that hold corrections only.
  `
  ALTER TABLE dispatches ADD COLUMN enforcement TEXT;
  CREATE INDEX dispatches_enforcement_todo ON dispatches (id)
    WHERE enforcement IS NULL AND action = 'correct' AND completion_id IS NOT NULL;
  CREATE INDEX dispatches_ignored ON dispatches (completion_id) WHERE enforcement = 'ignored';
  CREATE INDEX dispatches_corrections ON dispatches (harness, enforcement) WHERE action = 'correct';
  `,
  // 8: a change counter (rev) on completions and dispatches and the keys of deleted rows, for an incremental push
  changeCounterMigration(),
  // 9: GitHub Copilot CLI's premium-request multiplier per completion (`cost` on its usage records for GitHub-hosted
  // models; NULL for every other harness and under BYOK). Additive: no rollup reads it; the report reads the few rows
  // that have one through the partial index.
  `
  ALTER TABLE completions ADD COLUMN multiplier REAL;
  CREATE INDEX completions_multiplier ON completions (ended_at) WHERE multiplier IS NOT NULL;
  `,
  // 10: the decision record (issue 29, observer/ledger/decisions.ts): one row per dispatch a hook decided, with the
  // model the child would have run on without tiergate, where that was read, the decision, the model or agent after
  // correction and both models' rates at decision time. Additive: dispatches from before it have no row and keep the
  // old estimate ("estimated (dispatch not recorded)"). A dispatch's join (its completion_id) is copied onto its
  // decision by trigger, so no pass scans open decisions; the best match for completions without an id reads recent
  // open decisions and the orphan completions' partial index. A change to a decision gives its dispatch a new `rev` (setting
  // it NULL, which the dispatch's own update trigger turns into the next number), and its completions too (their
  // saving is priced from it), so a push re-sends them.
  `
  CREATE TABLE decisions (
    dispatch_id     INTEGER PRIMARY KEY,
    harness         TEXT NOT NULL,
    session_id      TEXT,
    call_id         TEXT,
    at              INTEGER NOT NULL,
    agent           TEXT,
    requested_model TEXT,
    without_model   TEXT,
    without_from    TEXT NOT NULL,
    without_source  TEXT,
    parent_model    TEXT,
    parent_from     TEXT,
    kind            TEXT NOT NULL,
    reason          TEXT,
    to_value        TEXT,
    to_model        TEXT,
    without_rates   TEXT,
    chosen_rates    TEXT,
    budget          TEXT,
    completion_id   INTEGER,
    join_method     TEXT
  );
  CREATE INDEX decisions_open ON decisions (at) WHERE completion_id IS NULL AND kind NOT IN ('deny', 'budget-deny');
  CREATE INDEX decisions_kind ON decisions (kind, at) WHERE kind <> 'allow';
  CREATE INDEX decisions_matched ON decisions (completion_id) WHERE join_method = 'session-agent-order';
  CREATE INDEX completions_orphan ON completions (harness, session_id, ended_at)
    WHERE dispatch_id IS NULL AND call_id IS NULL;
  CREATE TRIGGER dispatches_decision_join AFTER UPDATE OF completion_id ON dispatches
    WHEN NEW.completion_id IS NOT NULL BEGIN
    UPDATE decisions SET completion_id = NEW.completion_id, join_method = COALESCE(join_method, 'dispatch-id')
      WHERE dispatch_id = NEW.id AND completion_id IS NOT NEW.completion_id;
  END;
  CREATE TRIGGER decisions_rev_insert AFTER INSERT ON decisions BEGIN
    UPDATE dispatches SET rev = NULL WHERE id = NEW.dispatch_id;
    UPDATE completions SET rev = NULL WHERE dispatch_id = NEW.dispatch_id;
  END;
  CREATE TRIGGER decisions_rev_update AFTER UPDATE ON decisions BEGIN
    UPDATE dispatches SET rev = NULL WHERE id = NEW.dispatch_id;
    UPDATE completions SET rev = NULL WHERE dispatch_id = NEW.dispatch_id;
  END;
  `,
  // 11: the rollups stop counting one harness by name (cursor_runs): see noHarnessMeasureMigration
  noHarnessMeasureMigration(),
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Ledger schema, as an ordered list of migrations. Each runs once, inside a transaction, and bumps
 * `schema_version`. Never edit a shipped migration: append a new one.
 *
 * Privacy: no column holds prompt, brief or result text. Outcomes are stored as short tokens only.
 * Money: cost columns are exact integers in pico-USD (1e-12 USD); NULL means unpriced, never $0.
 */
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
];

export const SCHEMA_VERSION = MIGRATIONS.length;

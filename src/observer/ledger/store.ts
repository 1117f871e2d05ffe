/**
 * Writes to the ledger. Every insert is idempotent on a unique key, so a spool line drained twice, a transcript
 * scanned twice, or a hook and a scan seeing the same child all land once. Joins between a dispatch and its completion
 * use exact ids only (call id / tool_use_id, or the child id a parent transcript names), never time or model guesses.
 */
import type { Harness } from '../../contracts/harness.js';
import type { Outcome } from '../../contracts/observation.js';
import type { Usage } from '../../contracts/usage.js';
import type { Priced, Pricer } from '../pricing.js';
import type { ChildSummary, TranscriptRequest } from '../transcripts.js';
import type { SqlDriver, SqlValue } from './driver.js';
import { ledgerParams, ledgerText } from './text.js';
import { joinDecisions } from './decisions.js';

export type DispatchRow = {
  harness: Harness;
  sessionId: string | null;
  callId: string | null;
  at: number;
  project: string | null;
  parentModel: string | null;
  parentModelSource: string | null;
  requestedModel: string | null;
  requestedAgent: string | null;
  requestedTier: string | null;
  subagentType: string | null;
  action: string | null;
  reason: string | null;
  tier: string | null;
  effectiveModel: string | null;
  catalogVersion: string | null;
  escalationFrom: string | null;
  childAgentId: string | null;
  /** spool (a hook saw it: carries the decision) or scan (backfilled from a transcript). */
  source: 'spool' | 'scan';
};

export type CompletionRow = {
  harness: Harness;
  sessionId: string | null;
  callId: string | null;
  agentId: string | null;
  subagentType: string | null;
  project: string | null;
  requestedModel: string | null;
  servedModel: string | null;
  usage: Usage | null;
  status: 'ok' | 'error' | 'cancelled' | 'pending' | 'unknown';
  outcome: Outcome;
  startedAt: number | null;
  endedAt: number;
  usageSource: string;
  transcriptPath: string | null;
  incomplete: boolean;
  /** Cost already known (scan sums per-request costs; long-context tiers apply per request). */
  cost?: { picoUsd: bigint | null; catalogVersion: string; modelId: string | null } | null;
  /** Fallback identity when neither agentId nor callId exists (a spool line's hash). */
  fallbackKey: string;
  /** The child's turn, for harnesses whose children run several turns (Codex follow-up tasks): one row per turn. */
  turnId?: string | null;
  /** The child's request multiplier (ledger migration 9; descriptor requestBilling); absent where billed by token. */
  multiplier?: number | null;
  /** servedModel is the harness's configured name (ChildSummary.modelAsConfigured): a served model recorded wins. */
  modelAsConfigured?: boolean;
};

export function dispatchKey(harness: string, callId: string | null, fallback: string): string {
  return callId ? `${harness}:call:${callId}` : `${harness}:line:${fallback}`;
}

/**
 * A child is the same child whoever reports it: its own id first, then the dispatch's id. A child that runs several
 * turns (Codex) is one row per turn, so the hook and the scan that both see a turn land on the same key.
 */
export function completionKey(
  harness: string,
  agentId: string | null,
  callId: string | null,
  fallback: string,
  turnId: string | null = null,
): string {
  if (agentId) return turnId ? `${harness}:agent:${agentId}:turn:${turnId}` : `${harness}:agent:${agentId}`;
  if (callId) return `${harness}:call:${callId}`;
  return `${harness}:line:${fallback}`;
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function touchSession(
  db: SqlDriver,
  harness: string,
  sessionId: string | null,
  project: string | null,
  at: number,
): void {
  if (!sessionId) return;
  db.prepare(
    `INSERT INTO sessions (harness, session_id, project, first_at, last_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (harness, session_id) DO UPDATE SET
       project = COALESCE(sessions.project, excluded.project),
       first_at = MIN(sessions.first_at, excluded.first_at),
       last_at = MAX(sessions.last_at, excluded.last_at)`,
  ).run(...ledgerParams([harness, sessionId, project, at, at]));
}

/** A hook's record (with its decision) replaces a scanned one; a scan never overwrites a hook's. */
export function recordDispatch(db: SqlDriver, d: DispatchRow, fallbackKey: string): boolean {
  const r = db
    .prepare(
      `INSERT INTO dispatches (dedupe_key, harness, session_id, call_id, at, project, parent_model, parent_model_source,
       requested_model, requested_agent, requested_tier, subagent_type, action, reason, tier, effective_model,
       catalog_version, escalation_from, child_agent_id, source)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (dedupe_key) DO UPDATE SET
       parent_model = COALESCE(excluded.parent_model, dispatches.parent_model),
       parent_model_source = COALESCE(excluded.parent_model_source, dispatches.parent_model_source),
       requested_model = excluded.requested_model, requested_agent = excluded.requested_agent,
       requested_tier = excluded.requested_tier, subagent_type = COALESCE(excluded.subagent_type, dispatches.subagent_type),
       action = excluded.action, reason = excluded.reason, tier = excluded.tier, effective_model = excluded.effective_model,
       catalog_version = excluded.catalog_version, escalation_from = COALESCE(excluded.escalation_from, dispatches.escalation_from),
       child_agent_id = COALESCE(dispatches.child_agent_id, excluded.child_agent_id), source = excluded.source
     WHERE dispatches.source = 'scan' AND excluded.source = 'spool'`,
    )
    .run(
      ...ledgerParams([
        dispatchKey(d.harness, d.callId, fallbackKey),
        d.harness,
        d.sessionId,
        d.callId,
        d.at,
        d.project,
        d.parentModel,
        d.parentModelSource,
        d.requestedModel,
        d.requestedAgent,
        d.requestedTier,
        d.subagentType,
        d.action,
        d.reason,
        d.tier,
        d.effectiveModel,
        d.catalogVersion,
        d.escalationFrom,
        d.childAgentId,
        d.source,
      ]),
    );
  // A scan learning the child id of a dispatch a hook recorded: fill that one field in.
  if (r.changes === 0 && d.childAgentId && d.callId) {
    db.prepare('UPDATE dispatches SET child_agent_id = ? WHERE dedupe_key = ? AND child_agent_id IS NULL').run(
      ...ledgerParams([d.childAgentId, dispatchKey(d.harness, d.callId, fallbackKey)]),
    );
  }
  touchSession(db, d.harness, d.sessionId, d.project, d.at);
  return r.changes > 0;
}

/**
 * Upsert a completion. A later report replaces an earlier one only when it knows more: a pending or usage-less row is
 * replaced by anything; a scanned row by a fresher scan or a hook; a finished hook row is never downgraded.
 */
export function recordCompletion(db: SqlDriver, c: CompletionRow): boolean {
  const u = c.usage;
  const cost = c.cost ?? null;
  const params: SqlValue[] = ledgerParams([
    completionKey(c.harness, c.agentId, c.callId, c.fallbackKey, c.turnId ?? null),
    c.harness,
    c.sessionId,
    c.callId,
    c.agentId,
    c.subagentType,
    c.project,
    c.requestedModel,
    c.servedModel,
    u?.input ?? null,
    u?.output ?? null,
    u?.cacheRead ?? null,
    u?.cacheWrite5m ?? null,
    u?.cacheWrite1h ?? null,
    u?.reasoning ?? null,
    u?.requests ?? null,
    cost?.picoUsd ?? null,
    cost?.catalogVersion ?? null,
    cost?.modelId ?? null,
    c.status,
    c.outcome.result,
    c.outcome.verified,
    c.outcome.escalationFrom,
    c.startedAt,
    c.endedAt,
    utcDay(c.endedAt),
    c.startedAt !== null ? Math.max(0, c.endedAt - c.startedAt) : null,
    c.usageSource,
    c.transcriptPath,
    c.incomplete ? 1 : 0,
    c.turnId ?? null,
  ]);
  const asConfigured = c.modelAsConfigured ? 1 : 0;
  const r = db
    .prepare(
      `INSERT INTO completions (dedupe_key, harness, session_id, call_id, agent_id, subagent_type, project,
       requested_model, served_model, input, output, cache_read, cache_write_5m, cache_write_1h, reasoning, requests,
       cost_pico, cost_catalog_version, priced_model, status, result, verified, escalation_from,
       started_at, ended_at, day, duration_ms, usage_source, transcript_path, incomplete, turn_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (dedupe_key) DO UPDATE SET
       session_id = COALESCE(excluded.session_id, completions.session_id),
       call_id = COALESCE(excluded.call_id, completions.call_id),
       subagent_type = CASE WHEN completions.dispatch_id IS NULL
         THEN COALESCE(excluded.subagent_type, completions.subagent_type) ELSE completions.subagent_type END,
       project = COALESCE(excluded.project, completions.project),
       requested_model = CASE WHEN completions.dispatch_id IS NULL
         THEN COALESCE(excluded.requested_model, completions.requested_model) ELSE completions.requested_model END,
       served_model = CASE WHEN ? = 1 THEN COALESCE(completions.served_model, excluded.served_model)
         ELSE COALESCE(excluded.served_model, completions.served_model) END,
       input = excluded.input, output = excluded.output, cache_read = excluded.cache_read,
       cache_write_5m = excluded.cache_write_5m, cache_write_1h = excluded.cache_write_1h,
       reasoning = excluded.reasoning, requests = excluded.requests,
       cost_pico = excluded.cost_pico, cost_catalog_version = excluded.cost_catalog_version, priced_model = excluded.priced_model,
       counterfactual_pico = NULL, counterfactual_model = NULL, counterfactual_catalog_version = NULL,
       status = excluded.status,
       result = COALESCE(excluded.result, completions.result), verified = COALESCE(excluded.verified, completions.verified),
       escalation_from = COALESCE(excluded.escalation_from, completions.escalation_from),
       started_at = COALESCE(completions.started_at, excluded.started_at), ended_at = excluded.ended_at, day = excluded.day,
       duration_ms = COALESCE(excluded.duration_ms, completions.duration_ms),
       usage_source = excluded.usage_source, transcript_path = COALESCE(excluded.transcript_path, completions.transcript_path),
       incomplete = excluded.incomplete
     WHERE excluded.status <> 'pending' AND excluded.input IS NOT NULL AND (
       completions.status = 'pending' OR completions.input IS NULL
       OR (completions.usage_source = 'scan' AND (excluded.usage_source <> 'scan' OR excluded.output >= completions.output)))`,
    )
    .run(...params, asConfigured);
  // Ids and outcome tokens from a report that brings no better usage still fill gaps.
  if (r.changes === 0) {
    db.prepare(
      `UPDATE completions SET call_id = COALESCE(call_id, ?), subagent_type = COALESCE(subagent_type, ?),
         result = COALESCE(result, ?), verified = COALESCE(verified, ?), escalation_from = COALESCE(escalation_from, ?),
         transcript_path = COALESCE(transcript_path, ?)
       WHERE dedupe_key = ?`,
    ).run(
      ...ledgerParams([
        c.callId,
        c.subagentType,
        c.outcome.result,
        c.outcome.verified,
        c.outcome.escalationFrom,
        c.transcriptPath,
        params[0]!,
      ]),
    );
  }
  if (c.multiplier != null) setMultiplier(db, 'dedupe_key', params[0]!, c.multiplier);
  touchSession(db, c.harness, c.sessionId, c.project, c.endedAt);
  return r.changes > 0;
}

/** One API response from a transcript, priced now; the same key is stored once (max per field if seen again). */
export function recordRequest(
  db: SqlDriver,
  harness: Harness,
  project: string | null,
  r: TranscriptRequest,
  priced: Priced | null,
  pricer: Pricer,
): boolean {
  const res = db
    .prepare(
      `INSERT INTO requests (harness, key, session_id, agent_id, project, model, at, sidechain, input, output, cache_read,
       cache_write_5m, cache_write_1h, reasoning, cost_pico, catalog_version)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (harness, key) DO UPDATE SET
       input = excluded.input, output = excluded.output, cache_read = excluded.cache_read,
       cache_write_5m = excluded.cache_write_5m, cache_write_1h = excluded.cache_write_1h, reasoning = excluded.reasoning,
       cost_pico = excluded.cost_pico, catalog_version = excluded.catalog_version
     WHERE excluded.output > requests.output OR excluded.input > requests.input
       OR (requests.cost_pico IS NULL AND excluded.cost_pico IS NOT NULL)`,
    )
    .run(
      ...ledgerParams([
        harness,
        r.key,
        r.sessionId,
        r.agentId,
        project,
        r.model,
        r.at,
        r.sidechain ? 1 : 0,
        r.usage.input,
        r.usage.output,
        r.usage.cacheRead,
        r.usage.cacheWrite5m,
        r.usage.cacheWrite1h,
        r.usage.reasoning,
        priced?.picoUsd ?? null,
        priced?.catalogVersion ?? pricer.catalogVersion,
      ]),
    );
  return res.changes > 0;
}

type CostRow = {
  id: number;
  harness: Harness;
  served_model: string | null;
  parent_model: string | null;
  input: number;
  output: number;
  cache_read: number;
  cache_write_5m: number;
  cache_write_1h: number;
  reasoning: number;
  requests: number;
};

function usageOf(r: CostRow): Usage {
  return {
    input: r.input,
    output: r.output,
    cacheRead: r.cache_read,
    cacheWrite5m: r.cache_write_5m,
    cacheWrite1h: r.cache_write_1h,
    reasoning: r.reasoning,
    requests: Math.max(1, r.requests),
  };
}

/**
 * Fills what a completion learns after it was stored: the parent model from its dispatch (exact ids), the cost at the
 * served model, and the counterfactual cost at the parent's model. Unpriced rows are retried only by a newer catalog.
 */
export function reconcileCompletions(
  db: SqlDriver,
  pricer: Pricer,
): { joined: number; priced: number; counterfactual: number } {
  const joined = joinCompletions(db);
  joinDecisions(db);
  let priced = 0;
  const toPrice = db
    .prepare(
      `SELECT id, harness, served_model, parent_model, input, output, cache_read, cache_write_5m, cache_write_1h, reasoning, requests
     FROM completions WHERE input IS NOT NULL AND cost_pico IS NULL AND (cost_catalog_version IS NULL OR cost_catalog_version <> ?)`,
    )
    .all<CostRow>(pricer.catalogVersion);
  const setCost = db.prepare(
    'UPDATE completions SET cost_pico = ?, cost_catalog_version = ?, priced_model = ? WHERE id = ?',
  );
  for (const r of toPrice) {
    const p = pricer.price(r.served_model, r.harness, usageOf(r));
    setCost.run(p?.picoUsd ?? null, p?.catalogVersion ?? pricer.catalogVersion, p?.modelId ?? null, r.id);
    if (p) priced++;
  }

  let counterfactual = 0;
  const toCounter = db
    .prepare(
      `SELECT id, harness, served_model, parent_model, input, output, cache_read, cache_write_5m, cache_write_1h, reasoning, requests
     FROM completions WHERE input IS NOT NULL AND parent_model IS NOT NULL AND counterfactual_pico IS NULL
       AND (counterfactual_catalog_version IS NULL OR counterfactual_catalog_version <> ?)`,
    )
    .all<CostRow>(pricer.catalogVersion);
  const setCounter = db.prepare(
    'UPDATE completions SET counterfactual_pico = ?, counterfactual_model = ?, counterfactual_catalog_version = ? WHERE id = ?',
  );
  for (const r of toCounter) {
    const p = pricer.price(r.parent_model, r.harness, usageOf(r));
    setCounter.run(p?.picoUsd ?? null, p?.modelId ?? r.parent_model, p?.catalogVersion ?? pricer.catalogVersion, r.id);
    if (p) counterfactual++;
  }
  return { joined, priced, counterfactual };
}

/**
 * Exact-id joins (the decision record's best match for children without an id is observer/ledger/decisions.ts): a
 * joined completion is labelled with what its dispatch asked for (the agent, and the model it would have run on without
 * tiergate, from its decision record; else the dispatched model). A Codex child learns its call id from the parent rollout's SubAgentActivity (child thread id);
 * then every completion with a call id takes the dispatch's parent model, tier and dispatched model, and the dispatch
 * is marked completed.
 */
export function joinCompletions(db: SqlDriver): number {
  db.prepare(
    `UPDATE completions SET call_id = d.call_id FROM dispatches d
     WHERE completions.call_id IS NULL AND completions.agent_id IS NOT NULL
       AND d.harness = completions.harness AND d.child_agent_id = completions.agent_id AND d.call_id IS NOT NULL`,
  ).run();
  const touched = db
    .prepare(
      `SELECT DISTINCT d.id AS id FROM completions JOIN dispatches d ON d.harness = completions.harness AND d.call_id = completions.call_id
     WHERE completions.dispatch_id IS NULL AND completions.call_id IS NOT NULL`,
    )
    .all<{ id: number }>();
  const joined = db
    .prepare(
      `UPDATE completions SET dispatch_id = d.id,
       parent_model = COALESCE(completions.parent_model, d.parent_model),
       tier = COALESCE(completions.tier, d.tier),
       requested_model = COALESCE((SELECT o.without_model FROM decisions o WHERE o.dispatch_id = d.id),
         d.effective_model, d.requested_model, completions.requested_model),
       subagent_type = COALESCE((SELECT o.agent FROM decisions o WHERE o.dispatch_id = d.id), completions.subagent_type)
     FROM dispatches d
     WHERE completions.dispatch_id IS NULL AND completions.call_id IS NOT NULL
       AND d.harness = completions.harness AND d.call_id = completions.call_id`,
    )
    .run().changes;
  markFollowups(
    db,
    touched.map((t) => t.id),
  );
  db.prepare(
    `UPDATE dispatches SET completion_id = c.id FROM completions c
     WHERE dispatches.completion_id IS NULL AND c.dispatch_id = dispatches.id AND c.followup = 0`,
  ).run();
  // A dispatch recorded after its completion was joined (hook spool drained late) refreshes the copied fields.
  db.prepare(
    `UPDATE completions SET parent_model = COALESCE(completions.parent_model, d.parent_model), tier = COALESCE(completions.tier, d.tier)
     FROM dispatches d WHERE d.id = completions.dispatch_id AND (completions.parent_model IS NULL OR completions.tier IS NULL)
       AND (d.parent_model IS NOT NULL OR d.tier IS NOT NULL)`,
  ).run();
  return joined;
}

/**
 * Removes a child's one-row-per-child record (written before per-turn keys, ledger schema < 4) once its turns are stored
 * as rows of their own, so a rescan after an upgrade does not count the first turn twice. Its dispatch is re-joined to
 * the turn rows by the next join pass.
 */
export function supersedeWholeChild(db: SqlDriver, harness: Harness, agentId: string): void {
  const old = db
    .prepare('SELECT id FROM completions WHERE dedupe_key = ? AND turn_id IS NULL')
    .get<{ id: number }>(ledgerText(completionKey(harness, agentId, null, '')));
  if (!old) return;
  db.prepare('UPDATE dispatches SET completion_id = NULL WHERE completion_id = ?').run(old.id);
  db.prepare('DELETE FROM completions WHERE id = ?').run(old.id);
}

/**
 * A dispatch's first run is its completion; every later one (a Codex child's follow-up turn) is a follow-up, so a
 * dispatch is counted once however many turns its child runs. Order: start (else end) time, then row id.
 */
function markFollowups(db: SqlDriver, dispatchIds: readonly number[]): void {
  if (dispatchIds.length === 0) return;
  const first = db.prepare(
    `SELECT id FROM completions WHERE dispatch_id = ? ORDER BY COALESCE(started_at, ended_at), id LIMIT 1`,
  );
  const mark = db.prepare(
    'UPDATE completions SET followup = (id <> ?) WHERE dispatch_id = ? AND followup <> (id <> ?)',
  );
  const link = db.prepare('UPDATE dispatches SET completion_id = ? WHERE id = ? AND completion_id IS NOT ?');
  for (const d of dispatchIds) {
    const f = first.get<{ id: number }>(d);
    if (!f) continue;
    mark.run(f.id, d, f.id);
    link.run(f.id, d, f.id);
  }
}

/**
 * The multiplier (migration 9) in its own statement, run only for a row that has one (a child billed by request):
 * every other row is written as before this column existed.
 */
function setMultiplier(db: SqlDriver, by: 'dedupe_key' | 'id', key: SqlValue, multiplier: number): void {
  db.prepare(`UPDATE completions SET multiplier = ? WHERE ${by} = ? AND multiplier IS NOT ?`).run(
    multiplier,
    key,
    multiplier,
  );
}

/** A pending completion whose transcript has now flushed: fill usage, model and outcome in place (same row, same key). */
export function settleCompletion(db: SqlDriver, id: number, child: ChildSummary, endedAt: number): void {
  const u = child.usage!;
  db.prepare(
    `UPDATE completions SET status = 'ok', served_model = COALESCE(?, served_model), call_id = COALESCE(call_id, ?),
       subagent_type = COALESCE(subagent_type, ?), requested_model = COALESCE(requested_model, ?),
       input = ?, output = ?, cache_read = ?, cache_write_5m = ?, cache_write_1h = ?, reasoning = ?, requests = ?,
       cost_pico = NULL, cost_catalog_version = NULL, priced_model = NULL,
       counterfactual_pico = NULL, counterfactual_model = NULL, counterfactual_catalog_version = NULL,
       result = COALESCE(?, result), verified = COALESCE(?, verified), escalation_from = COALESCE(?, escalation_from),
       ended_at = ?, day = ?, duration_ms = CASE WHEN started_at IS NULL THEN duration_ms ELSE MAX(0, ? - started_at) END,
       usage_source = 'transcript-late', incomplete = ?
     WHERE id = ? AND status = 'pending'`,
  ).run(
    ...ledgerParams([
      child.servedModel,
      child.callId,
      child.subagentType,
      child.requestedModel,
      u.input,
      u.output,
      u.cacheRead,
      u.cacheWrite5m,
      u.cacheWrite1h,
      u.reasoning,
      u.requests,
      child.outcome.result,
      child.outcome.verified,
      child.outcome.escalationFrom,
      child.endedAt ?? endedAt,
      utcDay(child.endedAt ?? endedAt),
      child.endedAt ?? endedAt,
      child.incomplete ? 1 : 0,
      id,
    ]),
  );
  if (child.multiplier != null) setMultiplier(db, 'id', id, child.multiplier);
}

/** Ledger rows for the report tests, written straight to a ledger with recordDispatch / recordCompletion. */
import type { CompletionRow, DispatchRow } from '../../../src/observer/ledger/store.js';

/** A Claude `Explore` dispatch of session S1 asking for opus under a sonnet parent, corrected to sonnet; over sets the rest. */
export function dispatchRow(callId: string, over: Partial<DispatchRow> = {}): DispatchRow {
  return {
    harness: 'claude',
    sessionId: 'S1',
    callId,
    at: 0,
    project: '/work/a',
    parentModel: 'claude-sonnet-5-5',
    parentModelSource: 't',
    requestedModel: 'claude-opus-5-5',
    requestedAgent: null,
    requestedTier: null,
    subagentType: 'Explore',
    action: 'correct',
    reason: 'over-ceiling-corrected',
    tier: 'standard',
    effectiveModel: 'claude-sonnet-5-5',
    catalogVersion: 'c',
    escalationFrom: null,
    childAgentId: null,
    source: 'spool',
    ...over,
  };
}

/** That child's completion: served by sonnet, done and verified, usage from its transcript tail; over sets the rest. */
export function completionRow(
  agentId: string,
  callId: string | null,
  over: Partial<CompletionRow> = {},
): CompletionRow {
  return {
    harness: 'claude',
    sessionId: 'S1',
    callId,
    agentId,
    subagentType: 'Explore',
    project: '/work/a',
    requestedModel: null,
    servedModel: 'claude-sonnet-5-5',
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
    status: 'ok',
    outcome: { result: 'done', verified: 'yes', escalationFrom: null },
    startedAt: 0,
    endedAt: 1000,
    usageSource: 'transcript-tail',
    transcriptPath: null,
    incomplete: false,
    fallbackKey: agentId,
    ...over,
  };
}

/** A Claude Code `Agent` dispatch as the Claude adapter observes it, for tests that need a spool or ledger record. */
import type { DispatchObservation } from '../../../src/contracts/observation.js';

/**
 * An opus request from a general-purpose Agent call that the harness can rewrite to any of haiku/sonnet/opus; `over`
 * sets what the test is about (session, call, parent model, tool input, time).
 */
export function claudeDispatchObservation(over: Partial<DispatchObservation> = {}): DispatchObservation {
  return {
    kind: 'dispatch',
    harness: 'claude',
    sessionId: 'S1',
    callId: 'toolu_1',
    parentModel: 'claude-opus-5-5',
    parentModelSource: 'transcript-tail',
    requestedModel: 'opus',
    requestedAgent: null,
    requestedTier: null,
    agentModel: null,
    subagentType: 'general-purpose',
    capability: {
      canRewrite: true,
      rewriteField: 'model',
      rewriteKind: 'model',
      legalValues: ['haiku', 'sonnet', 'opus'],
      canDeny: true,
    },
    toolInput: { subagent_type: 'general-purpose', model: 'opus' },
    cwd: '/w',
    escalationFrom: null,
    at: 0,
    ...over,
  };
}

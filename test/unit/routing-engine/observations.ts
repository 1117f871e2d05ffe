import type { DispatchObservation } from '../../../src/contracts/observation.js';
import { CLAUDE_MODEL_ALIASES } from '../../../src/descriptors/claude.js';
import { claudeDispatchObservation } from '../support/claude-dispatch.js';

/** Builds a dispatch observation; capabilities mirror what each harness honours (reference, seen). */
export function claudeDispatch(parentModel: string | null, model: string | null): DispatchObservation {
  return claudeDispatchObservation({
    sessionId: 's',
    parentModel,
    parentModelSource: 'test',
    requestedModel: model,
    capability: {
      canRewrite: true,
      rewriteField: 'model',
      rewriteKind: 'model',
      legalValues: [...CLAUDE_MODEL_ALIASES],
      canDeny: true,
    },
    toolInput: { description: 'd', prompt: 'p', subagent_type: 'general-purpose', ...(model ? { model } : {}) },
    cwd: null,
  });
}

export function codexDispatch(
  parentModel: string | null,
  model: string | null,
  canRewrite = false,
): DispatchObservation {
  const toolInput: Record<string, unknown> = { task_name: 'demo_child', message: 'm', ...(model ? { model } : {}) };
  return {
    kind: 'dispatch',
    harness: 'codex',
    sessionId: 's',
    callId: 'call_1',
    parentModel,
    parentModelSource: 'payload',
    requestedModel: model,
    requestedAgent: null,
    requestedTier: null,
    agentModel: null,
    subagentType: null,
    capability: {
      canRewrite,
      rewriteField: canRewrite ? 'model' : null,
      rewriteKind: 'model',
      legalValues: null,
      canDeny: true,
    },
    toolInput,
    cwd: null,
    escalationFrom: null,
    at: 0,
  };
}

export function opencodeDispatch(
  parentModel: string,
  agent: string,
  agentModel: string | null,
  candidates: { value: string; model: string; tier: 'cheap' | 'standard' | 'premium' | 'parent' | null }[],
): DispatchObservation {
  return {
    kind: 'dispatch',
    harness: 'opencode',
    sessionId: 's',
    callId: 'c',
    parentModel,
    parentModelSource: 'chat.params',
    requestedModel: null,
    requestedAgent: agent,
    requestedTier: null,
    agentModel,
    subagentType: agent,
    capability: {
      canRewrite: true,
      rewriteField: 'subagent_type',
      rewriteKind: 'agent',
      legalValues: candidates.map((c) => c.value),
      canDeny: true,
    },
    candidates,
    toolInput: { subagent_type: agent, prompt: 'p', description: 'd' },
    cwd: null,
    escalationFrom: null,
    at: 0,
  };
}

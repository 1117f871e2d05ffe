/**
 * pi 0.73.1 `tool_call` / `tool_result` for a `subagent` tool -> tiergate observations. pi has no built-in subagent
 * tool; the shapes handled are pi's example (`{agent, task}`, `tasks[]`, `chain[]`), tools that take a `model`, and
 * tiergate's own (`{tier, task}`). Unknown shapes yield nothing (no gate, "no usage"). Reference: pi.md §2, §4, §5.
 */
import type { Capability, Tier } from '../../contracts/harness.js';
import { TierSchema } from '../../contracts/harness.js';
import type { Policy } from '../../contracts/config.js';
import type { CompletionObservation, DispatchObservation } from '../../contracts/observation.js';
import type { Usage } from '../../contracts/usage.js';
import { extractEscalation as escalationFrom, extractOutcome as parseOutcome } from '../../observer/outcome.js';
import { tierOfAgent } from '../tier-agents.js';
import { agentsInScope, type PiAgent } from './agents.js';
import { isRecord } from '../../contracts/record.js';

export const SUBAGENT_TOOL = 'subagent';

type Rec = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const int = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/** `modelRegistry`: pi's ModelRegistry (0.73.1), read only by registry-prices.ts. */
export type PiCtx = {
  cwd?: unknown;
  model?: unknown;
  modelRegistry?: unknown;
  sessionManager?: { getSessionId?: () => unknown };
};

/** `provider/id` of a pi Model (ctx.model). */
export function piModelName(m: unknown): string | null {
  if (!isRecord(m)) return null;
  const id = str(m.id);
  const provider = str(m.provider);
  return id ? (provider ? `${provider}/${id}` : id) : null;
}

export function piSessionId(ctx: PiCtx): string | null {
  try {
    return str(ctx.sessionManager?.getSessionId?.());
  } catch {
    return null;
  }
}

/** One dispatch inside a tool call: the object to mutate in place, the field, and its observation. */
export type PiSlot = { holder: Rec; field: 'agent' | 'model' | 'tier'; label: string; obs: DispatchObservation };

const capability = (field: PiSlot['field'], kind: Capability['rewriteKind'], legal: string[] | null): Capability => ({
  canRewrite: true,
  rewriteField: field,
  rewriteKind: kind,
  legalValues: legal,
  canDeny: true,
});

/**
 * `defaultModel`: what a model-less agent's child runs on (pi's settings default; null when unknown), `defaultModelFrom`
 * where that default was set.
 */
export type PiDispatchInput = {
  event: unknown;
  ctx: PiCtx;
  agents: Map<string, PiAgent>;
  defaultModel: string | null;
  defaultModelFrom?: string | null;
  policy: Policy;
  now: number;
};

export function observePiDispatch({
  event,
  ctx,
  agents: all,
  defaultModel,
  defaultModelFrom = null,
  policy,
  now,
}: PiDispatchInput): PiSlot[] {
  if (!isRecord(event) || event.toolName !== SUBAGENT_TOOL || !isRecord(event.input)) return [];
  const input = event.input;
  const parentModel = piModelName(ctx.model);
  const cwd = str(ctx.cwd);
  const base = {
    kind: 'dispatch' as const,
    harness: 'pi' as const,
    sessionId: piSessionId(ctx),
    parentModel,
    parentModelSource: parentModel ? 'ctx.model' : null,
    cwd,
    at: now,
  };
  const callId = str(event.toolCallId);

  // tiergate's own tool: {tier, task}. The tier maps to a model in policy.tiers.pi; parent = the parent's own model.
  if (typeof input.tier === 'string') {
    const tier = TierSchema.safeParse(input.tier);
    const map = policy.tiers.pi;
    const candidates = TierSchema.options.flatMap((t) => {
      const model = t === 'parent' ? (map.parent ?? parentModel) : map[t];
      return model ? [{ value: t, model, tier: t as Tier }] : [];
    });
    const model = tier.success ? (candidates.find((c) => c.value === tier.data)?.model ?? null) : null;
    const mapped = tier.success && (tier.data === 'parent' ? map.parent : map[tier.data]);
    return [
      {
        holder: input,
        field: 'tier',
        label: 'tier',
        obs: {
          ...base,
          callId,
          requestedModel: null,
          requestedAgent: null,
          requestedTier: null,
          agentModel: model,
          agentModelFrom: model
            ? mapped
              ? `tiergate tiers.pi.${tier.data}`
              : "the parent's model (tier parent)"
            : null,
          subagentType: str(input.tier),
          capability: capability(
            'tier',
            'agent',
            candidates.map((c) => c.value),
          ),
          candidates,
          toolInput: { ...input },
          escalationFrom: escalationFrom(str(input.task)),
        },
      },
    ];
  }

  // A tool that takes a model (seen honoured with a test tool): the engine's tier map gives the candidates.
  if (typeof input.model === 'string') {
    return [
      {
        holder: input,
        field: 'model',
        label: 'model',
        obs: {
          ...base,
          callId,
          requestedModel: input.model,
          requestedAgent: str(input.agent),
          requestedTier: null,
          agentModel: null,
          agentModelFrom: null,
          subagentType: str(input.agent),
          capability: capability('model', 'model', null),
          toolInput: { ...input },
          escalationFrom: escalationFrom(str(input.task)),
        },
      },
    ];
  }

  // Only the agents the tool will look up for this call: pi's example reads project agents only for
  // agentScope "project" / "both" (default "user"), so a project-only tier agent is no target for a user-scope call.
  const agents = agentsInScope(all, input.agentScope);
  const candidates = [...agents.values()].flatMap((a) => {
    const tier = tierOfAgent(a.name);
    return tier && a.model ? [{ value: a.name, model: a.model, tier }] : [];
  });
  const slots: Array<{ holder: Rec; label: string; id: string | null }> = [];
  if (typeof input.agent === 'string') slots.push({ holder: input, label: 'agent', id: callId });
  for (const key of ['tasks', 'chain'] as const) {
    const list = input[key];
    if (!Array.isArray(list)) continue;
    list.forEach((item, i) => {
      if (isRecord(item) && typeof item.agent === 'string')
        slots.push({ holder: item, label: `${key}[${i}].agent`, id: callId ? `${callId}#${key}.${i}` : null });
    });
  }
  return slots.map(({ holder, label, id }) => {
    const name = holder.agent as string;
    const known = agents.get(name);
    // An agent without `model:` runs on pi's default model from settings, not the parent's (seen on 0.73.1).
    const agentModel = known ? (known.model ?? defaultModel) : null;
    const agentModelFrom = !known || !agentModel ? null : known.model ? (known.path ?? null) : defaultModelFrom;
    return {
      holder,
      field: 'agent' as const,
      label,
      obs: {
        ...base,
        callId: id,
        requestedModel: null,
        requestedAgent: name,
        requestedTier: null,
        agentModel,
        agentModelFrom,
        subagentType: name,
        capability: capability(
          'agent',
          'agent',
          candidates.map((c) => c.value),
        ),
        candidates,
        toolInput: { ...holder },
        escalationFrom: escalationFrom(str(holder.task)),
      },
    };
  });
}

/** pi usage -> tiergate Usage. pi's `input` already excludes cache reads (1500 = 2000 - 500, seen). */
export function piUsage(u: unknown): Usage | null {
  if (!isRecord(u)) return null;
  return {
    input: int(u.input),
    output: int(u.output),
    cacheRead: int(u.cacheRead),
    cacheWrite5m: int(u.cacheWrite),
    cacheWrite1h: 0,
    reasoning: 0,
    requests: Math.max(1, int(u.turns) || 1),
  };
}

/**
 * `tool_result` of a subagent tool -> one completion per child. The served model is the child's own assistant
 * message `provider/model`, not `results[i].model` (that is the agent file's string: pi.md §4.2 trap).
 */
export function observePiCompletions(event: unknown, ctx: PiCtx, now: number): CompletionObservation[] {
  if (
    !isRecord(event) ||
    event.toolName !== SUBAGENT_TOOL ||
    !isRecord(event.details) ||
    !Array.isArray(event.details.results)
  )
    return [];
  const callId = str(event.toolCallId);
  const sessionId = piSessionId(ctx);
  const results = event.details.results;
  // pi's example names its modes single | parallel | chain (source); parallel tasks come from `tasks[]`.
  const rawMode = event.details.mode;
  const mode =
    rawMode === 'parallel'
      ? 'tasks'
      : rawMode === 'chain'
        ? 'chain'
        : rawMode === 'single'
          ? 'single'
          : results.length > 1
            ? 'tasks'
            : 'single';
  return results.flatMap((r, i): CompletionObservation[] => {
    if (!isRecord(r)) return [];
    const assistants = (Array.isArray(r.messages) ? r.messages : []).filter(
      (m): m is Rec => isRecord(m) && m.role === 'assistant',
    );
    const last = assistants[assistants.length - 1];
    const served = last ? (str(last.provider) ? `${str(last.provider)}/${str(last.model)}` : str(last.model)) : null;
    const text =
      last && Array.isArray(last.content)
        ? last.content
            .filter(isRecord)
            .map((p) => (p.type === 'text' ? String(p.text ?? '') : ''))
            .join('')
        : null;
    const usage = piUsage(r.usage);
    const exit = typeof r.exitCode === 'number' ? r.exitCode : null;
    const stop = str(r.stopReason);
    // The same per-task id the dispatch used (`#tasks.i` / `#chain.i`), so the ledger joins dispatch and completion.
    const id = callId && mode !== 'single' ? `${callId}#${mode}.${i}` : callId;
    return [
      {
        kind: 'completion',
        harness: 'pi',
        sessionId,
        callId: id,
        agentId: null,
        subagentType: str(r.agent) ?? str(r.tier),
        servedModel: served,
        usage,
        status:
          exit === 0 && stop !== 'error' && stop !== 'aborted'
            ? 'ok'
            : stop === 'aborted'
              ? 'cancelled'
              : exit === null
                ? 'unknown'
                : 'error',
        outcome: parseOutcome(text),
        startedAt: null,
        endedAt: now,
        usageSource: usage ? 'tool-result' : 'none',
        dedupeKey: id ? `pi:${sessionId ?? '-'}:${id}` : null,
      },
    ];
  });
}

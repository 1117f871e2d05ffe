/**
 * tiergate's own `subagent` tool for pi (opt-in: dist/pi-subagent.js). It takes a TIER instead of an agent and runs
 * the child as a separate `pi --mode json -p --no-session --model <tier model>` process, the way pi 0.73.1's example
 * runs children (source), so pi users get routing without writing a tool. tiergate's gate (dist/pi.js) sees the call
 * as `{tier, task}` and corrects `tier` in place when it would cost more than the parent.
 * Its result `details` has the example's shape, so the same completion code records the child.
 */
import type { Tier } from '../../contracts/harness.js';
import { TierSchema } from '../../contracts/harness.js';
import type { Env } from '../../io/paths.js';
import type { CollectResult } from '../../io/processes.js';
import { piModelName, type PiCtx } from './observe.js';
import { isRecord } from '../../contracts/record.js';

export const CHILD_TIMEOUT_MS = 30 * 60 * 1000;
export const CHILD_MAX_BYTES = 16 * 1024 * 1024;

export type ToolDeps = {
  env: Env;
  tierModel: (tier: Tier, ctx: PiCtx) => string | null;
  run: (
    command: string,
    args: string[],
    opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number; maxBytes: number; signal?: AbortSignal },
  ) => Promise<CollectResult>;
  /** How to start pi again: the running pi's own Node and script (pi's example does the same). */
  piCommand: () => { command: string; args: string[] };
};

type Rec = Record<string, unknown>;

/** The child's `--mode json` stdout -> its assistant messages, summed usage and final text. */
export function parseChildEvents(stdout: string) {
  const messages: Rec[] = [];
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0, turns: 0 };
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    let ev: unknown;
    try {
      ev = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isRecord(ev) || ev.type !== 'message_end' || !isRecord(ev.message) || ev.message.role !== 'assistant')
      continue;
    const m = ev.message;
    messages.push(m);
    const u = isRecord(m.usage) ? m.usage : {};
    const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    usage.input += n(u.input);
    usage.output += n(u.output);
    usage.cacheRead += n(u.cacheRead);
    usage.cacheWrite += n(u.cacheWrite);
    usage.cost += isRecord(u.cost) ? n(u.cost.total) : 0;
    usage.contextTokens = n(u.totalTokens) || usage.contextTokens;
    usage.turns += 1;
  }
  const last = messages[messages.length - 1];
  const text =
    last && Array.isArray(last.content)
      ? last.content
          .filter(isRecord)
          .filter((p) => p.type === 'text')
          .map((p) => String(p.text ?? ''))
          .join('')
      : '';
  return { messages, usage, text, stopReason: last && typeof last.stopReason === 'string' ? last.stopReason : null };
}

export const TIER_TOOL_PARAMETERS = {
  type: 'object',
  properties: {
    tier: {
      type: 'string',
      enum: [...TierSchema.options],
      description:
        'Price tier for the child: cheap (quick, mechanical), standard, premium (hard reasoning) or parent (your own model). Never pricier than you.',
    },
    task: { type: 'string', description: 'The complete task for the subagent; it sees nothing else.' },
    cwd: { type: 'string', description: 'Working directory for the subagent (default: the current one).' },
  },
  required: ['tier', 'task'],
  additionalProperties: false,
} as const;

export function createTierSubagentTool(deps: ToolDeps) {
  return {
    name: 'subagent',
    label: 'Subagent (tiergate)',
    description:
      "Delegate a task to a subagent that runs in its own pi process on a price tier (cheap, standard, premium or parent). A subagent may not cost more than you: tiergate lowers the tier if needed. Returns the subagent's final answer.",
    parameters: TIER_TOOL_PARAMETERS,
    async execute(_toolCallId: string, params: Rec, signal: AbortSignal | undefined, _onUpdate: unknown, ctx: PiCtx) {
      const tier = TierSchema.parse(params.tier);
      const task = String(params.task ?? '');
      const model = deps.tierModel(tier, ctx) ?? (tier === 'parent' ? piModelName(ctx.model) : null);
      if (!model)
        throw new Error(
          `tiergate: tier '${tier}' has no model for pi; set tiers.pi.${tier} in tiergate's config or use another tier.`,
        );
      const { command, args } = deps.piCommand();
      const cwd =
        typeof params.cwd === 'string' && params.cwd ? params.cwd : typeof ctx.cwd === 'string' ? ctx.cwd : undefined;
      const r = await deps.run(
        command,
        [...args, '--mode', 'json', '-p', '--no-session', '--model', model, `Task: ${task}`],
        {
          cwd,
          env: { ...(deps.env as NodeJS.ProcessEnv), TIERGATE_PI_CHILD: '1' },
          timeoutMs: CHILD_TIMEOUT_MS,
          maxBytes: CHILD_MAX_BYTES,
          signal,
        },
      );
      const child = parseChildEvents(r.stdout);
      const result = {
        agent: `tiergate-${tier}`,
        tier,
        task,
        exitCode: r.code ?? -1,
        messages: child.messages,
        stderr: r.stderr.slice(-4000),
        usage: child.usage,
        model,
        stopReason: r.timedOut ? 'aborted' : child.stopReason,
      };
      const details = { mode: 'single', results: [result] };
      if (r.code !== 0 || !child.text) {
        const why = r.error ?? (r.timedOut ? 'timed out' : (r.stderr.trim().split('\n').pop() ?? `exit ${r.code}`));
        return {
          content: [{ type: 'text', text: `Subagent (${tier}, ${model}) failed: ${why}` }],
          details,
          isError: true,
        };
      }
      return { content: [{ type: 'text', text: child.text }], details };
    },
  };
}

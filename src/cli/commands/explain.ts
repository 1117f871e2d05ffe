/** `tiergate explain --harness <h> --parent <model> --child <model|tier> [--json]`: one decision, fully explained. */
import { wrapped } from '../terminal.js';
import { capabilityFor } from '../../adapters/capabilities.js';
import { HARNESS_IDS, TIERS, TierSchema, type Harness, type Tier } from '../../contracts/harness.js';
import { tierAgentName } from '../../adapters/tier-agents.js';
import type { DispatchObservation } from '../../contracts/observation.js';
import type { Decision, PricePoint } from '../../contracts/decision.js';
import { decide } from '../../routing-engine/decide.js';
import { loadRuntime } from '../../config/runtime.js';
import { parseCommandFlags, usageError } from '../args.js';
import { explainProjectPolicy } from '../project-policy.js';
import { chooseHarness, harnessesKnowing, terminalAsk, type Ask, type HarnessChoice } from '../harness-choice.js';
import { HARNESSES } from '../../adapters/index.js';
import type { HarnessModule } from '../../adapters/harness-module.js';
import { explainBudgetLines, explainSpend } from '../../report/budget-lines.js';

export const USAGE = `Usage: tiergate explain [--harness ${HARNESS_IDS.join('|')}] --parent <model> [--child <model|tier>] [--json]
       tiergate explain --agent <name> [--cwd <project dir>] --parent <model> [--child <model>] [--json]
  What tiergate would decide for one dispatch, with the whole price comparison (no --harness: the one
  harness whose tiers or aliases name the models; asked on a terminal when several or none do).
  --agent: the model the named agent runs on, where that comes from, and what tiergate does with it (for the harnesses
  whose module resolves agents: ${harnessesWithAgents(HARNESSES).join(', ')}).`;

export async function run(
  argv: string[],
  registry: Readonly<Record<Harness, HarnessModule>> = HARNESSES,
  ask: Ask | null = terminalAsk(),
): Promise<number> {
  const parsed = parseCommandFlags(
    'explain',
    USAGE,
    argv,
    {
      harness: { type: 'string' },
      parent: { type: 'string' },
      child: { type: 'string' },
      json: { type: 'boolean' },
      agent: { type: 'string' },
      cwd: { type: 'string' },
    },
    true,
  );
  if (!parsed) return 2;
  const { values } = parsed;
  const named = values.harness === undefined ? null : await chooseHarness(values.harness, [], [], null);
  if (named && 'error' in named) return usageError('explain', named.error);
  if (values.parent === undefined)
    return usageError('explain', '--parent <model> is required (the model the parent session runs on)');
  const chosen = named ?? (await inferHarness(values.parent, values.child, ask));
  if ('error' in chosen) return usageError('explain', chosen.error);
  const harness = { data: chosen.harness };
  if (values.agent !== undefined) {
    const module = registry[harness.data];
    const explainAgent = module.explainAgent;
    if (!explainAgent) {
      const those = harnessesWithAgents(registry).map((h) => `--harness ${h}`);
      const where = those.length ? `for ${those.join(', ')} only` : 'for no harness';
      return usageError('explain', `--agent is resolved ${where} (${module.name} has no agent resolution in tiergate)`);
    }
    return explainNamedAgent(
      module.id,
      (input) => explainAgent.call(module, input),
      values.agent,
      values.parent,
      values.child ?? null,
      values.cwd ?? process.cwd(),
      values.json === true,
    );
  }
  const rt = loadRuntime(process.env, process.cwd());
  const capability = capabilityFor(harness.data, rt.policy);
  const tier = TierSchema.safeParse(values.child);
  const child = values.child ?? null;
  const agentKind = capability.rewriteKind === 'agent';
  const tiers = rt.policy.tiers[harness.data];
  const obs: DispatchObservation = {
    kind: 'dispatch',
    harness: harness.data,
    sessionId: null,
    callId: null,
    parentModel: values.parent,
    parentModelSource: 'cli',
    requestedModel: tier.success || agentKind ? null : child,
    requestedAgent: agentKind && !tier.success ? child : null,
    requestedTier: tier.success ? tier.data : null,
    agentModel: agentKind && !tier.success ? child : null,
    subagentType: null,
    capability,
    toolInput: child ? { [capability.rewriteField ?? 'model']: child } : {},
    cwd: process.cwd(),
    escalationFrom: null,
    at: Date.now(),
    // The values the hook offers: tiergate's tier agents (`tiergate-<tier>`, each on its tier's model; `parent` on
    // the parent's own), not the bare tier names, so the retry or correction shown is the one the hook gives.
    ...(agentKind
      ? {
          candidates: TIERS.flatMap((t) => {
            const model = t === 'parent' ? (tiers.parent ?? values.parent) : tiers[t];
            return model ? [{ value: tierAgentName(t), model, tier: t as Tier }] : [];
          }),
        }
      : {}),
  };
  const decision = decide(obs, rt.policy, rt.prices, explainSpend(rt.policy, harness.data, obs.at));
  const projectPolicy = explainProjectPolicy(process.env, process.cwd());
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ observation: obs, decision, catalogVersion: rt.prices.catalogVersion, projectPolicy: projectPolicy.project }, null, 2)}\n`,
    );
  } else {
    process.stdout.write(wrapped(describe(decision, rt.prices.catalogVersion) + projectPolicy.text));
  }
  return 0;
}

/**
 * `--agent <name>`: the chain from the agent's definition to the decision, as the harness's dispatch hook in
 * `projectDir` resolves it (its module's explainAgent: for Claude Code the project's and the user's agent files,
 * CLAUDE_CODE_SUBAGENT_MODEL), then the decision.
 */
async function explainNamedAgent(
  harness: Harness,
  explainAgent: NonNullable<HarnessModule['explainAgent']>,
  name: string,
  parent: string,
  callModel: string | null,
  projectDir: string,
  json: boolean,
): Promise<number> {
  const rt = loadRuntime(process.env, projectDir);
  const e = await explainAgent({
    name,
    callModel,
    parentModel: parent,
    projectDir,
    env: process.env,
    at: Date.now(),
  });
  const decision = decide(e.observation, rt.policy, rt.prices, explainSpend(rt.policy, harness, e.observation.at));
  const line = e.chain(decision, rt.prices);
  const projectPolicy = explainProjectPolicy(process.env, projectDir);
  if (json) {
    process.stdout.write(
      `${JSON.stringify(
        {
          chain: line,
          ...e.details,
          observation: e.observation,
          decision,
          catalogVersion: rt.prices.catalogVersion,
          projectPolicy: projectPolicy.project,
        },
        null,
        2,
      )}\n`,
    );
  } else {
    process.stdout.write(wrapped(`${line}\n${describe(decision, rt.prices.catalogVersion)}${projectPolicy.text}`));
  }
  return 0;
}

function describe(d: Decision, catalogVersion: string): string {
  const lines = [`decision: ${d.action.toUpperCase()} (${d.reason})`, `  ${d.summary}`];
  if (d.action === 'correct') lines.push(`  set ${d.field} = ${JSON.stringify(d.value)}`);
  if (d.action === 'deny') lines.push(`  the model sees: ${d.message}`);
  const c = d.comparison;
  if (c) {
    for (const [side, r] of [
      ['parent', c.parent],
      ['child', c.child],
    ] as const) {
      lines.push(
        `${side}: ${r.query || '(none)'} -> ${r.id ?? 'unknown'} [${r.how}${r.note ? `: ${r.note}` : ''}]${r.catalogVersion ? ` from ${r.catalogVersion}` : ''}`,
      );
    }
    lines.push(`verdict: child is ${c.verdict} (catalog ${catalogVersion}, data as of ${c.catalogDate})`);
    if (c.points.length) lines.push(...rateTable(c.points));
  }
  if (d.budget) lines.push(...explainBudgetLines(d.budget));
  for (const diag of d.diagnostics) lines.push(`note: ${diag}`);
  return `${lines.join('\n')}\n`;
}

const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * The rates compared, one row per kind and prompt size. A size above 0 is where a long-context tier of either model
 * starts (compare.ts checkpoints): said in words ("prompts from 272,001 tokens"), not as a bare number.
 */
function rateTable(points: readonly PricePoint[]): string[] {
  const tiered = points.some((p) => p.atPromptTokens > 0);
  const size = (at: number) =>
    at === 0 ? (tiered ? 'shorter prompts' : 'any prompt') : `from ${thousands(at)} tokens`;
  const out = ['  rate (USD / 1M tokens)  prompt size           parent      child       child is'];
  for (const p of points)
    out.push(
      `  ${p.kind.padEnd(23)} ${size(p.atPromptTokens).padEnd(21)} ${String(p.parent).padEnd(11)} ${String(p.child).padEnd(11)} ${p.order}`,
    );
  if (tiered) out.push('  (from N tokens: a long-context rate, charged once a prompt reaches N tokens)');
  return out;
}

/** The registry's harnesses whose module resolves a named agent (HarnessModule.explainAgent). */
/** No --harness: the one harness whose tiers or aliases name the child (unless a tier) or the parent, else ask. */
function inferHarness(parent: string, child: string | undefined, ask: Ask | null): Promise<HarnessChoice> {
  const models = [child, parent].filter((m): m is string => !!m && !TierSchema.safeParse(m).success);
  const rt = loadRuntime(process.env, process.cwd());
  return chooseHarness(undefined, models, harnessesKnowing(models, rt.policy.tiers, rt.prices), ask);
}

function harnessesWithAgents(registry: Readonly<Record<Harness, HarnessModule>>): string[] {
  return HARNESS_IDS.filter((h) => registry[h].explainAgent !== undefined);
}

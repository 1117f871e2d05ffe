/**
 * tiergate's Gemini CLI extension, as files: `gemini-extension.json`, `hooks/hooks.json` and one agent per tier
 * (`agents/tiergate-<tier>.md`). `tiergate install gemini` writes them into a folder of tiergate's data dir and runs
 * `gemini extensions install <folder> --consent`, which copies the folder into `<gemini>/extensions/tiergate/`
 * (0.61.0, seen). Written at install rather than shipped as is, for two reasons:
 *  - Gemini copies the whole folder and expands only `${extensionPath}` (the copy's path) in hook commands, so a
 *    shipped hooks.json could not reach this package's dist/hook.cjs; here the command names it by absolute path, as
 *    the other harnesses' installers point at the package;
 *  - invoke_agent has no model argument, so the tier agents carry the models: written from the user's policy
 *    (tiers.gemini), like pi's tier agents.
 */
import { join } from 'node:path';
import type { Policy } from '../../contracts/config.js';
import type { Tier } from '../../contracts/harness.js';
import { HOOK_NODE_FLAGS } from '../../hook-runner/bundles.js';
import { shQuote } from '../../install/shell.js';
import { TIER_AGENT_PROMPT, tierAgentName } from '../tier-agents.js';

/** The extension's name: its folder under `<gemini>/extensions/` and what `gemini extensions uninstall` takes. */
export const EXTENSION_NAME = 'tiergate';

/**
 * Milliseconds (Gemini hook timeouts are in ms: 2000 killed a hook at 2016 ms, seen). The runner's own deadline is
 * DEFAULT_DEADLINE_MS (5 s) inside it; a timed-out hook lets the dispatch through (seen).
 */
export const HOOK_TIMEOUT_MS = 10_000;

// JSON-quoted in the frontmatter; no key but the ones 0.61.0's strict agent schema knows (an unknown key rejects the file).
const DESCRIPTIONS: Record<Tier, string> = {
  cheap: 'General-purpose subagent on the cheap tier: quick lookups, mechanical edits, summaries.',
  standard: 'General-purpose subagent on the standard tier: everyday coding tasks.',
  premium: 'General-purpose subagent on the premium tier: hard reasoning (never pricier than you).',
  parent: 'General-purpose subagent on your own model.',
};

export type ExtensionFile = { rel: string; text: string };

/** `model` null: no `model:` line, so Gemini runs the child on the session's model. */
export function agentText(tier: Tier, model: string | null): string {
  return [
    '---',
    `name: ${tierAgentName(tier)}`,
    `description: ${JSON.stringify(DESCRIPTIONS[tier])}`,
    'kind: local',
    ...(model ? [`model: ${JSON.stringify(model)}`] : []),
    '---',
    TIER_AGENT_PROMPT,
    '',
  ].join('\n');
}

/** One command hook entry for `node dist/hook.cjs gemini <event>`. */
function hook(pkgRoot: string, event: string, matcher?: string): unknown {
  const command = `node ${HOOK_NODE_FLAGS} ${shQuote(join(pkgRoot, 'dist', 'hook.cjs'))} gemini ${event}`;
  return {
    ...(matcher ? { matcher } : {}),
    hooks: [{ name: `tiergate-${event}`, type: 'command', command, timeout: HOOK_TIMEOUT_MS }],
  };
}

/**
 * The hooks: BeforeTool/AfterTool on invoke_agent only (tool matchers are regular expressions, seen), SessionStart and
 * SessionEnd. No BeforeModel: it runs before every model request (a node process each); the parent's model is read from
 * its chat file at dispatch instead.
 */
export function hooksJson(pkgRoot: string): string {
  const only = '^invoke_agent$';
  return `${JSON.stringify(
    {
      hooks: {
        BeforeTool: [hook(pkgRoot, 'BeforeTool', only)],
        AfterTool: [hook(pkgRoot, 'AfterTool', only)],
        SessionStart: [hook(pkgRoot, 'SessionStart')],
        SessionEnd: [hook(pkgRoot, 'SessionEnd')],
      },
    },
    null,
    2,
  )}\n`;
}

const TIERS: readonly Tier[] = ['cheap', 'standard', 'premium'];

/**
 * Every file of the extension. A tier gets an agent when tiers.gemini maps it to a model; `tiergate-parent` is always
 * there (no model unless tiers.gemini.parent names one: Gemini runs it on the session's model), so a correction can
 * always keep the parent's own model.
 */
export function extensionFiles(pkgRoot: string, version: string, policy: Policy): ExtensionFile[] {
  const map = policy.tiers.gemini;
  const agents = TIERS.flatMap((tier) => {
    const model = map[tier];
    return typeof model === 'string' && model
      ? [{ rel: `agents/${tierAgentName(tier)}.md`, text: agentText(tier, model) }]
      : [];
  });
  agents.push({ rel: `agents/${tierAgentName('parent')}.md`, text: agentText('parent', map.parent || null) });
  const manifest = {
    name: EXTENSION_NAME,
    version,
    description:
      'tiergate: a subagent may not cost more than its parent. Corrects or denies over-ceiling invoke_agent calls and records what each child cost.',
  };
  return [
    { rel: 'gemini-extension.json', text: `${JSON.stringify(manifest, null, 2)}\n` },
    { rel: 'hooks/hooks.json', text: hooksJson(pkgRoot) },
    ...agents,
  ];
}

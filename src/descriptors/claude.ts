/** Claude Code, as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). */
import type { HarnessOptionValues } from '../contracts/harness.js';
import { defineHarness } from './define.js';

/**
 * Claude Code's Agent tool validates `model` against this enum (2.1.328, seen): full ids fail validation. Plain data:
 * the hooks module bundle imports it (a zod schema there adds ~700 KB Claude Code reads at every session start).
 */
export const CLAUDE_MODEL_ALIASES = ['haiku', 'sonnet', 'opus', 'fable'] as const;

/**
 * Where Claude Code runs, as the policy's `claudeProvider` may name it: decides what its aliases resolve to
 * (reference/pricing.md §2.4). The one list; the catalog also lists providers no policy names (CATALOG_PROVIDERS).
 */
export const CLAUDE_PROVIDERS = ['anthropic', 'bedrock', 'vertex', 'foundry', 'gateway'] as const;
export type ClaudeProvider = (typeof CLAUDE_PROVIDERS)[number];

/** The policy's provider for Claude Code: its `claudeProvider`, anthropic where unset or not one of the list. */
export const claudeProvider = (policy: HarnessOptionValues): ClaudeProvider => {
  const p = policy.claudeProvider;
  return (CLAUDE_PROVIDERS as readonly unknown[]).includes(p) ? (p as ClaudeProvider) : 'anthropic';
};

/** The catalog's alias table for Claude Code on a provider (prices/formats/harness-catalog.ts writes one per provider). */
export const claudeAliasTable = (provider: string): string =>
  provider === 'anthropic' ? 'claude' : `claude@${provider}`;

export const claudeHarness = defineHarness({
  name: 'Claude Code',
  // Claude Code 2.1.328: updatedInput (whole input) and the module's next({...e, model}) are honoured; the Agent tool's
  // model enum accepts only the aliases.
  rewrite: { field: 'model', kind: 'model', legalValues: CLAUDE_MODEL_ALIASES },
  // The Agent tool takes only aliases.
  defaultTiers: { cheap: 'haiku', standard: 'sonnet', premium: 'opus' },
  reportsUsage: true,
  childEndEvent: 'SubagentStop (command hooks); turn.complete (hooks module)',
  childStop: "the child's next tool call (PreToolUse with agent_id)",
  askPrompt:
    'PreToolUse permissionDecision "ask", in the TUI only (CLAUDE_CODE_SESSION_ATTENDED=1); -p gets the non-ask action',
  dispatchEvents: ['PreToolUse'],
  // SessionEnd's timeout is 5 s (hooks.json).
  eventDeadlinesMs: { SessionEnd: 3500 },
  // `opus` & co. mean a different model per provider (reference/pricing.md §2.4): that provider's table, then the
  // first-party one; ANTHROPIC_DEFAULT_*_MODEL beats both.
  priceAliases: (opts) => {
    const provider = claudeProvider(opts);
    // Claude Code's ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU,FABLE}_MODEL: alias -> model id, beating the catalog table.
    const names = opts.claudeAliasOverrides as Partial<Record<string, string>> | undefined;
    return {
      tables: [...new Set([claudeAliasTable(provider), claudeAliasTable('anthropic')])],
      why: `Claude Code alias on ${provider}`,
      ...(names ? { overrides: { names, why: 'ANTHROPIC_DEFAULT_*_MODEL' } } : {}),
    };
  },
  options: {
    claudeProvider: {
      values: CLAUDE_PROVIDERS,
      default: 'anthropic',
      project: { kind: 'trusted-only', why: "it changes what Claude Code's aliases cost" },
    },
  },
});

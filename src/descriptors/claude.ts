/** Claude Code, as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). */
import type { HarnessDescriptor } from '../contracts/harness.js';
import { CLAUDE_MODEL_ALIASES } from '../contracts/aliases.js';

/** The catalog's alias table for Claude Code on a provider (prices/formats/harness-catalog.ts writes one per provider). */
export const claudeAliasTable = (provider: string): string =>
  provider === 'anthropic' ? 'claude' : `claude@${provider}`;

export const claudeDescriptor: HarnessDescriptor = {
  id: 'claude',
  name: 'Claude Code',
  documentationOnly: false,
  // Claude Code 2.1.328: updatedInput (whole input) and the module's next({...e, model}) are honoured; the Agent tool's
  // model enum accepts only the aliases.
  capability: () => ({
    canRewrite: true,
    rewriteField: 'model',
    rewriteKind: 'model',
    legalValues: [...CLAUDE_MODEL_ALIASES],
    canDeny: true,
  }),
  // The Agent tool takes only aliases.
  defaultTiers: { cheap: 'haiku', standard: 'sonnet', premium: 'opus' },
  reportsUsage: true,
  childEndEvent: 'SubagentStop (command hook)',
  dispatchEvents: ['PreToolUse'],
  // SessionEnd's timeout is 5 s (hooks.json).
  eventDeadlinesMs: { SessionEnd: 3500 },
  // `opus` & co. mean a different model per provider (reference/pricing.md §2.4): that provider's table, then the
  // first-party one; ANTHROPIC_DEFAULT_*_MODEL beats both.
  priceAliases: ({ claudeProvider: provider, claudeAliasOverrides }) => ({
    tables: [...new Set([claudeAliasTable(provider), claudeAliasTable('anthropic')])],
    why: `Claude Code alias on ${provider}`,
    ...(claudeAliasOverrides ? { overrides: { names: claudeAliasOverrides, why: 'ANTHROPIC_DEFAULT_*_MODEL' } } : {}),
  }),
};

import type { Policy } from '../contracts/config.js';

/**
 * Built-in policy. Tier models per harness come from what each harness accepts (reference, seen): Claude Code's Agent
 * tool takes only aliases; Codex 0.169.0 lists gpt-6.1-sol, gpt-6-astra, gpt-6-sol, gpt-6-luna, gpt-5.6-sol as allowed
 * spawn overrides. OpenCode, pi and Cursor route by agent or by the user's own model names, so their tiers are empty
 * until configured (tiergate install writes tier agents).
 */
export const DEFAULT_POLICY: Policy = {
  mode: 'on',
  unknownPrice: 'allow',
  defaultTier: 'standard',
  tiers: {
    claude: { cheap: 'haiku', standard: 'sonnet', premium: 'opus' },
    codex: { cheap: 'gpt-6-luna', standard: 'gpt-6-sol', premium: 'gpt-6-astra' },
    cursor: {},
    opencode: {},
    pi: {},
    gemini: { cheap: 'gemini-2.5-flash', standard: 'gemini-2.5-pro', premium: 'gemini-3.1-pro-preview' },
    copilot: { cheap: 'gpt-5.4-mini', standard: 'gpt-5.4', premium: 'claude-opus-4.8' },
  },
  priceOverrides: {},
  codexRewrite: false,
  onIgnoredRewrite: 'correct',
  claudeProvider: 'anthropic',
  refresh: {
    enabled: true,
    ttlHours: 24,
    sources: [
      { name: 'openrouter', url: 'https://openrouter.ai/api/v1/models', format: 'openrouter' },
      { name: 'litellm', url: 'https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json', format: 'litellm' },
    ],
  },
  observer: { tailBytes: 4 * 1024 * 1024 },
  // No amount: no budget is enforced until the user sets one (docs/budgets.md).
  budgets: { action: 'downshift', warnAt: 0.8 },
  trustedProjects: [],
  team: {},
};

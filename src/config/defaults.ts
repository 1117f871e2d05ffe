import { DESCRIPTORS, HARNESS_OPTIONS } from '../descriptors/index.js';
import type { Policy } from '../contracts/config.js';
import { HARNESS_IDS } from '../contracts/harness-ids.js';

/**
 * Each harness's tiers as its descriptor gives them (src/descriptors/<harness>.ts, from what the harness
 * accepts, seen): Claude Code's Agent tool takes only aliases; Codex and the others take model ids; OpenCode, pi and
 * Cursor route by agent or by the user's own model names, so theirs are empty until configured (tiergate install
 * writes tier agents). Copied, so nothing that edits a policy reaches a descriptor.
 */
function defaultTiers(): Policy['tiers'] {
  return Object.fromEntries(HARNESS_IDS.map((h) => [h, { ...DESCRIPTORS[h].defaultTiers }])) as Policy['tiers'];
}

/** Built-in policy. */
export const DEFAULT_POLICY: Policy = {
  mode: 'on',
  unknownPrice: 'allow',
  defaultTier: 'standard',
  tiers: defaultTiers(),
  priceOverrides: {},
  onIgnoredRewrite: 'correct',
  onOverCeiling: 'correct',
  refresh: {
    enabled: true,
    ttlHours: 24,
    sources: [
      { name: 'openrouter', url: 'https://openrouter.ai/api/v1/models', format: 'openrouter' },
      {
        name: 'litellm',
        url: 'https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json',
        format: 'litellm',
      },
    ],
  },
  observer: { tailBytes: 4 * 1024 * 1024 },
  // No amount: no budget is enforced until the user sets one (docs/budgets.md).
  budgets: { action: 'downshift', warnAt: 0.8 },
  // No limit until the user sets one.
  limits: {},
  trustedProjects: [],
  team: {},
  // The keys harnesses own (HarnessDescriptor.options): their defaults.
  ...Object.fromEntries(Object.entries(HARNESS_OPTIONS).map(([key, o]) => [key, o.default])),
};

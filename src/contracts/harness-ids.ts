/**
 * The harness id list (re-exported by harness.ts, which documents it) and the tier names, in a module without zod:
 * the dispatch bundles read the descriptors keyed by the ids, and scripts/build.mjs writes their dispatch events into
 * dist/hook.cjs, so a zod import here would put zod in every command hook.
 */
export const HARNESS_IDS = [
  'claude',
  'codex',
  'cursor',
  'opencode',
  'pi',
  'gemini',
  'copilot',
  'grok',
  'hermes',
] as const;
export type Harness = (typeof HARNESS_IDS)[number];

/** Tier names a brief or a config may use (TierSchema's options). `parent` means "the parent's own model". */
export const TIERS = ['cheap', 'standard', 'premium', 'parent'] as const;

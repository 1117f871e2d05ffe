/**
 * The harness id list (re-exported by harness.ts, which documents it), in a module without zod: dist/hook.cjs reads
 * the descriptors keyed by it, and a zod import there would be bundled into every hook process's loader.
 */
export const HARNESS_IDS = ['claude', 'codex', 'cursor', 'opencode', 'pi', 'gemini', 'copilot'] as const;
export type Harness = (typeof HARNESS_IDS)[number];

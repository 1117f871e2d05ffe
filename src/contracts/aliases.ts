/**
 * Plain constants of the contracts, kept free of zod: Claude Code's hooks module bundle imports them, and a zod
 * schema in its import graph adds ~700 KB that Claude Code reads at every session start.
 */

/** Claude Code's Agent tool validates `model` against this enum (2.1.328, seen): full ids fail validation. */
export const CLAUDE_MODEL_ALIASES = ['haiku', 'sonnet', 'opus', 'fable'] as const;

/**
 * What Cursor lets tiergate do (documentation only: no Cursor binary was run). `updated_input` on preToolUse is
 * documented but nobody verified that a changed `tool_input.model` changes the spawned subagent's model, and
 * subagentStart has no rewrite at all (cursor.md §4): so deny with a precise retry, never rewrite.
 */
import type { Capability } from '../../contracts/harness.js';

export const CURSOR_CAPABILITY: Capability = {
  canRewrite: false,
  rewriteField: null,
  rewriteKind: 'model',
  legalValues: null,
  canDeny: true,
};

/** Requested-model values that name no model: the child runs on the parent's (cursor.md §3, §8 trap 2). */
export const INHERIT_VALUES = new Set(['', 'inherit']);

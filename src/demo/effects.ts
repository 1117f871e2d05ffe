/**
 * What a harness is told, read back from the native answer the adapter produced: the text the model sees on a deny,
 * the new value on a correction. Command hooks answer JSON on stdout; in-process plugins throw / return a block or edit
 * the tool input in place. The readers shared by harnesses (DemoKit.effects); one harness's own format is read in its
 * demo (Cursor's: src/adapters/cursor/demo.ts).
 */
import type { DemoEffect as Effect } from '../contracts/demo.js';
import type { HookAnswer } from '../contracts/hook.js';

const NONE: Effect = { modelSees: null, newValue: null };

function parse(answer: HookAnswer): Record<string, any> | null {
  if (!answer?.stdout) return null;
  try {
    return JSON.parse(answer.stdout) as Record<string, any>;
  } catch {
    return null;
  }
}

/** Claude Code and Codex: `hookSpecificOutput` with a deny reason or an `updatedInput` (whole input, model changed). */
export function hookSpecificEffect(answer: HookAnswer): Effect {
  const out = parse(answer)?.hookSpecificOutput as Record<string, any> | undefined;
  if (!out) return NONE;
  if (out.permissionDecision === 'deny')
    return { modelSees: String(out.permissionDecisionReason ?? ''), newValue: null };
  const model = out.updatedInput?.model;
  return { modelSees: null, newValue: typeof model === 'string' ? model : null };
}

/** In-process: a thrown/blocked reason, or the field the plugin edited in place. */
export function inProcessEffect(denial: string | null, before: unknown, after: unknown): Effect {
  if (denial) return { modelSees: denial, newValue: null };
  return { modelSees: null, newValue: before !== after && typeof after === 'string' ? after : null };
}

/**
 * Grok Build's part of `tiergate demo`: PreToolUse and PostToolUse payloads recorded from 1.0.41 through the command
 * hook, with the parent's summary.json and the child's usage.json placed where Grok keeps them in the sandbox's home.
 */
import { join } from 'node:path';
import type { DemoEffect, DemoKit } from '../../contracts/demo.js';
import type { HookAnswer } from '../../contracts/hook.js';

/** Grok's answer: the deny `reason` (what the model reads), or the corrected `updatedInput.model`. */
export function grokEffect(answer: HookAnswer): DemoEffect {
  let out: Record<string, any> | null = null;
  try {
    out = answer?.stdout ? (JSON.parse(answer.stdout) as Record<string, any>) : null;
  } catch {
    out = null;
  }
  if (out?.decision === 'deny') return { modelSees: `Hook denied: ${String(out.reason ?? '')}`, newValue: null };
  const model = out?.hookSpecificOutput?.updatedInput?.model;
  return { modelSees: null, newValue: typeof model === 'string' ? model : null };
}

export async function demo(kit: DemoKit): Promise<void> {
  const over = kit.json('grok/PreToolUse.over-ceiling.json');
  const done = kit.json('grok/PostToolUse.json');
  const sessions = join(kit.env.HOME!, '.grok', 'sessions', encodeURIComponent(kit.project));
  const parentDir = join(sessions, String(over.sessionId));
  kit.place('grok/parent.summary.json', join(parentDir, 'summary.json'));
  const transcript = join(parentDir, 'updates.jsonl');
  // claude-opus-4-1 asked for under a grok-4.6 parent: corrected to the parent's model.
  await kit.command('PreToolUse', { ...over, transcriptPath: transcript }, grokEffect);
  // grok-4.5 (priced as grok-4.6): within the ceiling, untouched.
  const within = kit.json('grok/PreToolUse.within-ceiling.json');
  await kit.command('PreToolUse', { ...within, transcriptPath: transcript }, grokEffect);
  kit.place('grok/child.usage.json', join(sessions, String(done.toolResult.subagent_id), 'usage.json'));
  await kit.command('PostToolUse', { ...done, transcriptPath: transcript }, () => null);
}

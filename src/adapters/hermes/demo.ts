/**
 * Hermes Agent's part of `tiergate demo`: the payloads tiergate's Python plugin sends the dispatch hook (built from the
 * kwargs Hermes 0.19.0 passed its pre_tool_call, seen), and the completion line the plugin appends to the spool from
 * the child's post_api_request and subagent_stop (the plugin writes it in Python; the demo replays the line).
 */
import type { DemoEffect, DemoKit } from '../../contracts/demo.js';
import type { HookAnswer } from '../../contracts/hook.js';
import type { SpoolRecord } from '../../contracts/spool.js';
import { spoolRecord } from '../../observer/spend-record.js';

/** The plugin's answer: a block's message (what the model reads), or the model the child's requests are moved to. */
export function hermesEffect(answer: HookAnswer): DemoEffect {
  let out: Record<string, unknown> | null = null;
  try {
    out = answer?.stdout ? (JSON.parse(answer.stdout) as Record<string, unknown>) : null;
  } catch {
    out = null;
  }
  if (out?.action === 'block') return { modelSees: String(out.message ?? ''), newValue: null };
  return { modelSees: null, newValue: out?.action === 'correct' && typeof out.model === 'string' ? out.model : null };
}

export async function demo(kit: DemoKit): Promise<void> {
  // delegation.model claude-opus-4-1 under a gpt-4o parent: the child's requests moved to the parent's model.
  await kit.command('pre_tool_call', kit.json('hermes/pre_tool_call.over-ceiling.json'), hermesEffect);
  // delegation.model gpt-4o-mini: within the ceiling, untouched.
  await kit.command('pre_tool_call', kit.json('hermes/pre_tool_call.within-ceiling.json'), hermesEffect);
  await kit.step('subagent_stop', async () => {
    spoolRecord(kit.json('hermes/completion.spool.json') as SpoolRecord, kit.env, { cwd: kit.project });
    return null;
  });
}

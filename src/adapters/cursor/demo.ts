/** Cursor's part of `tiergate demo`: its documented subagentStart and subagentStop shapes through the command hook. */
import type { DemoEffect, DemoKit } from '../../contracts/demo.js';
import type { HookAnswer } from '../../contracts/hook.js';

/** Cursor answers `{permission, agent_message}`; a correction is answered as a deny naming the retry (no verified rewrite). */
export function cursorEffect(answer: HookAnswer): DemoEffect {
  let out: Record<string, unknown> | null = null;
  try {
    out = answer?.stdout ? (JSON.parse(answer.stdout) as Record<string, unknown>) : null;
  } catch {
    out = null;
  }
  if (out?.permission === 'deny') return { modelSees: String(out.agent_message ?? ''), newValue: null };
  return { modelSees: null, newValue: null };
}

export async function demo(kit: DemoKit): Promise<void> {
  await kit.command('subagentStart', kit.json('cursor/subagentStart.json'), cursorEffect);
  await kit.command('subagentStop', kit.json('cursor/subagentStop.json'), () => null);
}

/**
 * Copilot CLI's part of `tiergate demo`: recorded preToolUse and subagentStop payloads (1.0.102) through the command
 * hook, with the session file and the custom agent they read placed where Copilot keeps them in the sandbox's home.
 */
import type { DemoEffect, DemoKit } from '../../contracts/demo.js';
import type { HookAnswer } from '../../contracts/hook.js';

/** Copilot's answer: `permissionDecisionReason` on a deny (what the model sees), `modifiedArgs.model` on a correction. */
export function copilotEffect(answer: HookAnswer): DemoEffect {
  let out: Record<string, unknown> | null = null;
  try {
    out = answer?.stdout ? (JSON.parse(answer.stdout) as Record<string, unknown>) : null;
  } catch {
    out = null;
  }
  if (out?.permissionDecision === 'deny')
    return { modelSees: `Denied by preToolUse hook: ${String(out.permissionDecisionReason ?? '')}`, newValue: null };
  const args = out?.modifiedArgs as Record<string, unknown> | undefined;
  return { modelSees: null, newValue: typeof args?.model === 'string' ? args.model : null };
}

export async function demo(kit: DemoKit): Promise<void> {
  const home = `${kit.env.HOME}/.copilot`;
  kit.place('copilot/pricey.agent.md', `${home}/agents/pricey.agent.md`);
  const over = kit.json('copilot/preToolUse.over-ceiling.json');
  const events = `${home}/session-state/${over.sessionId}/events.jsonl`;
  kit.place('copilot/basic.session.at-preToolUse.jsonl', events);
  // The custom agent `pricey` runs on claude-opus-4.8 under a gpt-5.4 parent: corrected.
  await kit.command('preToolUse', over, copilotEffect);
  // general-purpose naming gpt-5.4-mini: within the ceiling, untouched.
  await kit.command('preToolUse', kit.json('copilot/preToolUse.within-ceiling.json'), copilotEffect);
  // A tool other than `task`: no answer, nothing recorded.
  await kit.command('preToolUse', { ...over, toolName: 'bash', toolArgs: { command: 'ls' } }, copilotEffect);
  kit.place('copilot/basic.session.final.jsonl', events);
  const stop = kit.json('copilot/subagentStop.json');
  stop.transcriptPath = events;
  await kit.command('subagentStop', stop, () => null);
}

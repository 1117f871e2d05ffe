/** Claude Code's part of `tiergate demo`: recorded PreToolUse and SubagentStop payloads through the command hook. */
import type { DemoKit } from '../../contracts/demo.js';

export async function demo(kit: DemoKit): Promise<void> {
  const over = kit.json('claude/PreToolUse.over-ceiling.json');
  over.transcript_path = kit.stage(
    'claude/parent-sonnet.parent.at-PreToolUse.jsonl',
    `claude/${over.session_id}.jsonl`,
  );
  await kit.command('PreToolUse', over, kit.effects.hookSpecific);
  // The corrected child ran on sonnet: its completion joins the correction, so the report shows what it saved.
  await stopChild(kit, 'corrected', 'SubagentStop.corrected.json', over.transcript_path);

  const within = kit.json('claude/PreToolUse.within-ceiling.json');
  within.transcript_path = kit.stage('claude/basic.parent.at-PreToolUse.jsonl', `claude/${within.session_id}.jsonl`);
  await kit.command('PreToolUse', within, kit.effects.hookSpecific);

  await stopChild(kit, 'basic', 'SubagentStop.json', within.transcript_path);
}

async function stopChild(kit: DemoKit, name: string, payload: string, parentTranscript: unknown): Promise<void> {
  const stop = kit.json(`claude/${payload}`);
  stop.transcript_path = parentTranscript;
  // The child transcript and its `.meta.json` sidecar (which carries the dispatching toolUseId, 2.1.328).
  const child = `claude/${stop.session_id}/subagents/agent-${stop.agent_id}`;
  stop.agent_transcript_path = kit.stage(`claude/${name}.child.at-SubagentStop.jsonl`, `${child}.jsonl`);
  kit.stage(`claude/${name}.child.agent-meta.json`, `${child}.meta.json`);
  await kit.command('SubagentStop', stop, () => null);
}

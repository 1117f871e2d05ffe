/** Claude Code's part of `tiergate demo`: recorded PreToolUse and SubagentStop payloads through the command hook. */
import type { DemoKit } from '../../contracts/demo.js';

export async function demo(kit: DemoKit): Promise<void> {
  const over = kit.json('claude/PreToolUse.over-ceiling.json');
  over.transcript_path = kit.stage(
    'claude/parent-sonnet.parent.at-PreToolUse.jsonl',
    `claude/${over.session_id}.jsonl`,
  );
  await kit.command('PreToolUse', over, kit.effects.hookSpecific);

  const within = kit.json('claude/PreToolUse.within-ceiling.json');
  within.transcript_path = kit.stage('claude/basic.parent.at-PreToolUse.jsonl', `claude/${within.session_id}.jsonl`);
  await kit.command('PreToolUse', within, kit.effects.hookSpecific);

  const stop = kit.json('claude/SubagentStop.json');
  stop.transcript_path = within.transcript_path;
  // The child transcript and its `.meta.json` sidecar (which carries the dispatching toolUseId, 2.1.328).
  const child = `claude/${stop.session_id}/subagents/agent-${stop.agent_id}`;
  stop.agent_transcript_path = kit.stage('claude/basic.child.at-SubagentStop.jsonl', `${child}.jsonl`);
  kit.stage('claude/basic.child.agent-meta.json', `${child}.meta.json`);
  await kit.command('SubagentStop', stop, () => null);
}

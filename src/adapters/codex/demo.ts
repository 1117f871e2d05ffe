/** Codex's part of `tiergate demo`: recorded PreToolUse and SubagentStop payloads through the command hook. */
import { join } from 'node:path';
import type { DemoKit } from '../../contracts/demo.js';

export async function demo(kit: DemoKit): Promise<void> {
  const over = kit.json('codex/PreToolUse.over-ceiling.json');
  over.transcript_path = join(kit.root, 'transcripts', 'codex', 'not-written.jsonl');
  await kit.command('PreToolUse', over, kit.effects.hookSpecific);

  const cheaper = kit.json('codex/PreToolUse.cheaper-child.json');
  cheaper.transcript_path = kit.stage('codex/child-cheaper.parent.final.jsonl', `codex/${cheaper.session_id}.jsonl`);
  await kit.command('PreToolUse', cheaper, kit.effects.hookSpecific);

  const stop = kit.json('codex/SubagentStop.json');
  stop.transcript_path = cheaper.transcript_path;
  stop.agent_transcript_path = kit.stage(
    'codex/child-cheaper.child.at-SubagentStop.jsonl',
    `codex/${stop.agent_id}.jsonl`,
  );
  await kit.command('SubagentStop', stop, () => null);
}

/** Gemini CLI's part of `tiergate demo`: recorded BeforeTool and AfterTool payloads through the command hook. */
import { join } from 'node:path';
import type { DemoEffect, DemoKit } from '../../contracts/demo.js';
import type { HookAnswer } from '../../contracts/hook.js';

/** Gemini answers `{decision: "deny", reason}` or a whole new `tool_input` (answer.ts). */
export function geminiEffect(answer: HookAnswer): DemoEffect {
  let out: Record<string, any> | null = null;
  try {
    out = answer?.stdout ? (JSON.parse(answer.stdout) as Record<string, any>) : null;
  } catch {
    out = null;
  }
  if (out?.decision === 'deny')
    return { modelSees: `Tool execution blocked: ${String(out.reason ?? '')}`, newValue: null };
  const agent = out?.hookSpecificOutput?.tool_input?.agent_name;
  return { modelSees: null, newValue: typeof agent === 'string' ? agent : null };
}

export async function demo(kit: DemoKit): Promise<void> {
  // The recorded agents (pricey: gemini-3-pro-preview; tiergate's tier agents as `tiergate install gemini` writes them).
  for (const f of ['pricey.md', 'tiergate-cheap.md', 'tiergate-parent.md'])
    kit.place(`gemini/agents/${f}`, join(kit.env.HOME!, '.gemini', 'agents', f));
  const dispatch = kit.json('gemini/BeforeTool.over-ceiling.json');
  dispatch.transcript_path = kit.stage(
    'gemini/basic.parent.at-BeforeTool.jsonl',
    `gemini/chats/session-${dispatch.session_id}.jsonl`,
  );
  await kit.command('BeforeTool', dispatch, geminiEffect);

  const done = kit.json('gemini/AfterTool.json');
  done.transcript_path = dispatch.transcript_path;
  kit.stage('gemini/basic.child.jsonl', `gemini/chats/${done.session_id}/c8590bcd-3b9c-430d-bca6-cb8de6dc4689.jsonl`);
  await kit.command('AfterTool', done, () => null);
}

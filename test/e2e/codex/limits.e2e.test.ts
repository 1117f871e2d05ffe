/**
 * Fan-out limits against the real Codex CLI (0.169.0) and a fake Responses API on 127.0.0.1, tiergate's hooks from the
 * shipped manifest (issue 33 item 2). With limits.concurrentSubagents 2 a gpt-6-sol parent spawns three gpt-6-sol
 * children in one turn without waiting (spawn_agent returns at once; each child's answer is held back 4 s so the first
 * two are still running): two children run (the API sees two child conversations) and the third spawn's output is the
 * limit's refusal, stating the count, the limit and the money. SubagentStop is the child's end that releases a place.
 */
import { describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import { collaborationCall, isCodexChild, runCodexSession, spawnAgentArgs } from '../support/codex-run.js';
import type { Script } from '../support/fake-responses-api.js';

const found = harnessBin('codex');
const bin = found.ok ? found.bin : '';

const spawn = (task: string) => collaborationCall('spawn_agent', spawnAgentArgs(task, 'gpt-6-sol'), `call_${task}`);

/** Three spawns back to back, then one wait for all; children answer after 4 s. */
const threeAtOnce: Script = (r) => {
  if (isCodexChild(r)) return { type: 'text', text: 'Result: done\nVerified: yes', delayMs: 4000 };
  const o = r.outputs;
  for (const t of ['c1', 'c2', 'c3']) if (o[`call_${t}`] === undefined) return spawn(t);
  if (o.call_wait === undefined) return collaborationCall('wait_agent', { timeout_ms: 20000 }, 'call_wait');
  return { type: 'text', text: 'parent done' };
};

describe.skipIf(!found.ok)('Codex CLI: fan-out limits (real binary)', () => {
  async function run(limits: Record<string, number> | null) {
    const { api } = await runCodexSession(bin, {
      script: threeAtOnce,
      prompt: 'DEMO-PARENT: delegate three at once',
      tiergateConfig: limits ? { limits } : undefined,
    });
    const children = [...new Set(api.requests.filter(isCodexChild).map((q) => q.agentName))];
    return { children, outputs: api.requests.at(-1)!.outputs };
  }

  it('concurrentSubagents 2: three spawns in one turn run two children and the third is refused', async () => {
    const { children, outputs } = await run({ concurrentSubagents: 2 });
    expect(children.sort()).toEqual(['/root/c1', '/root/c2']);
    expect(outputs.call_c3).toMatch(
      /tiergate: 2 subagents are running in this session, the limit \(limits\.concurrentSubagents\) is 2; wait for one to finish, then dispatch this one again\. Money: \$0\.0000 spent on this session's subagents so far/,
    );
    expect(outputs.call_c1).not.toMatch(/tiergate/);
  });

  it('without a limit all three run', async () => {
    const { children } = await run(null);
    expect(children.sort()).toEqual(['/root/c1', '/root/c2', '/root/c3']);
  });
});

/**
 * Fan-out limits against the real Codex CLI (0.169.0) and a fake Responses API on 127.0.0.1, tiergate's hooks from the
 * shipped manifest (issue 33 item 2). With limits.concurrentSubagents 2 a gpt-6-sol parent spawns three gpt-6-sol
 * children in one turn without waiting (spawn_agent returns at once; each child's answer is held back 4 s so the first
 * two are still running): two children run (the API sees two child conversations) and the third spawn's output is the
 * limit's refusal, stating the count, the limit and the money. SubagentStop is the child's end that releases a place.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import {
  codexEnv,
  execArgs,
  makeCodexHome,
  runCodex,
  writeCodexConfig,
  writeHooksJson,
  type CodexHome,
} from '../support/codex-run.js';
import { startFakeResponsesApi, type Script } from '../support/fake-responses-api.js';
import { writeTiergateConfig } from '../support/sandbox.js';

const repo = join(import.meta.dirname, '../../..');
const found = harnessBin('codex');
const bin = found.ok ? found.bin : '';

function shippedHooks(): unknown {
  const text = readFileSync(join(repo, 'hooks-codex.json'), 'utf8').replaceAll('${PLUGIN_ROOT}', repo);
  return (JSON.parse(text) as { hooks: unknown }).hooks;
}

const spawn = (task: string) => ({
  type: 'call' as const,
  namespace: 'collaboration',
  name: 'spawn_agent',
  args: {
    task_name: task,
    message: `CHILD_TASK: ${task}`,
    model: 'gpt-6-sol',
    reasoning_effort: 'low',
    fork_turns: 'none',
  },
  callId: `call_${task}`,
});

/** Three spawns back to back, then one wait for all; children answer after 4 s. */
const threeAtOnce: Script = (r) => {
  if (r.agentName !== null && r.agentName !== '/root')
    return { type: 'text', text: 'Result: done\nVerified: yes', delayMs: 4000 };
  const o = r.outputs;
  for (const t of ['c1', 'c2', 'c3']) if (o[`call_${t}`] === undefined) return spawn(t);
  if (o.call_wait === undefined)
    return {
      type: 'call',
      namespace: 'collaboration',
      name: 'wait_agent',
      args: { timeout_ms: 20000 },
      callId: 'call_wait',
    };
  return { type: 'text', text: 'parent done' };
};

const homes: CodexHome[] = [];

describe.skipIf(!found.ok)('Codex CLI: fan-out limits (real binary)', () => {
  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  async function run(limits: Record<string, number> | null) {
    const api = await startFakeResponsesApi(threeAtOnce);
    const home = makeCodexHome();
    homes.push(home);
    writeCodexConfig(home, { apiUrl: api.url, model: 'gpt-6-sol' });
    writeHooksJson(home, shippedHooks());
    writeTiergateConfig(home.tiergateHome, limits ? { limits } : undefined);
    const r = await runCodex(bin, execArgs('DEMO-PARENT: delegate three at once'), {
      cwd: home.project,
      env: codexEnv(home),
      timeoutMs: 120_000,
    });
    await api.close();
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const children = [
      ...new Set(api.requests.filter((q) => q.agentName && q.agentName !== '/root').map((q) => q.agentName)),
    ];
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

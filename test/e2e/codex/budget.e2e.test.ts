/**
 * Spend budgets against the real Codex CLI (0.169.0) and a fake Responses API on 127.0.0.1, tiergate's hooks from the
 * shipped manifest. A gpt-6-sol parent spawns a gpt-6-sol child (within the ceiling), waits for it, then spawns a
 * second one. The first child's reported usage crosses a session budget of $0.0005: its SubagentStop hook counts it in
 * the spend summary before the second spawn, which is then denied with a retry naming the cheap tier (Codex takes no
 * rewrite by default, `codexRewrite` off) and retried there (the API sees gpt-6-luna), or, with action deny, refused
 * (the model reads the budget). Under the budget both children run on gpt-6-sol.
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
import { startFakeResponsesApi, type RecordedRequest, type Script } from '../support/fake-responses-api.js';
import { writeTiergateConfig } from '../support/sandbox.js';

const repo = join(import.meta.dirname, '../../..');
const found = harnessBin('codex');
const bin = found.ok ? found.bin : '';

function shippedHooks(): unknown {
  const text = readFileSync(join(repo, 'hooks-codex.json'), 'utf8').replaceAll('${PLUGIN_ROOT}', repo);
  return (JSON.parse(text) as { hooks: unknown }).hooks;
}

const spawn = (task: string, model: string) => ({
  task_name: task,
  message: `CHILD_TASK: ${task}`,
  model,
  reasoning_effort: 'low',
  fork_turns: 'none',
});
const call = (name: string, args: Record<string, unknown>, callId: string) => ({
  type: 'call' as const,
  namespace: 'collaboration',
  name,
  args,
  callId,
});

/** Two spawns in sequence, each waited for; a blocked second spawn is retried once on the model its retry names. */
const twoInSequence: Script = (r) => {
  if (r.agentName !== null && r.agentName !== '/root') return { type: 'text', text: 'Result: done\nVerified: yes' };
  const o = r.outputs;
  if (o.call_first === undefined) return call('spawn_agent', spawn('first_child', 'gpt-6-sol'), 'call_first');
  if (o.call_wait_first === undefined) return call('wait_agent', { timeout_ms: 20000 }, 'call_wait_first');
  if (o.call_second === undefined) return call('spawn_agent', spawn('second_child', 'gpt-6-sol'), 'call_second');
  const retryModel = /Retry the same dispatch with model: "([^"]+)"/.exec(o.call_second)?.[1];
  if (o.call_second.includes('blocked by PreToolUse hook')) {
    if (retryModel && o.call_retry === undefined)
      return call('spawn_agent', spawn('second_child', retryModel), 'call_retry');
    if (o.call_retry === undefined) return { type: 'text', text: 'parent done' };
  }
  if (o.call_wait_second === undefined) return call('wait_agent', { timeout_ms: 20000 }, 'call_wait_second');
  return { type: 'text', text: 'parent done' };
};

const homes: CodexHome[] = [];

describe.skipIf(!found.ok)('Codex CLI: spend budgets (real binary)', () => {
  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  async function run(budgets: Record<string, unknown>) {
    const api = await startFakeResponsesApi(twoInSequence);
    const home = makeCodexHome();
    homes.push(home);
    writeCodexConfig(home, { apiUrl: api.url, model: 'gpt-6-sol' });
    writeHooksJson(home, shippedHooks());
    writeTiergateConfig(home.tiergateHome, { budgets });
    const r = await runCodex(bin, execArgs('DEMO-PARENT: delegate twice'), {
      cwd: home.project,
      env: codexEnv(home),
      timeoutMs: 120_000,
    });
    await api.close();
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const children = api.requests
      .filter((q: RecordedRequest) => q.agentName && q.agentName !== '/root')
      .map((q) => [q.agentName, q.model]);
    const outputs = api.requests.at(-1)!.outputs;
    return { children, outputs };
  }

  it('the first child crosses the session budget: the second spawn is denied with a retry on the cheap model, which runs', async () => {
    const { children, outputs } = await run({ session: '0.0005' });
    expect(children).toEqual([
      ['/root/first_child', 'gpt-6-sol'],
      ['/root/second_child', 'gpt-6-luna'],
    ]);
    expect(outputs.call_second).toMatch(
      /tiergate: the session budget of \$0\.0005 \(\$0\.00\d+ spent\) is spent; from here subagents run on the cheap tier\. Retry the same dispatch with model: "gpt-6-luna" \(tier cheap\)\./,
    );
  });

  it('with action deny the second spawn is refused and the model reads the budget', async () => {
    const { children, outputs } = await run({ session: '0.0005', action: 'deny' });
    expect(children).toEqual([['/root/first_child', 'gpt-6-sol']]);
    expect(outputs.call_second).toMatch(
      /tiergate: the session budget of \$0\.0005 \(\$0\.00\d+ spent\) is spent; no more subagents run under it\./,
    );
  });

  it('under the budget nothing changes', async () => {
    const { children, outputs } = await run({ session: '10', day: '10', month: '10' });
    expect(children).toEqual([
      ['/root/first_child', 'gpt-6-sol'],
      ['/root/second_child', 'gpt-6-sol'],
    ]);
    expect(outputs.call_second).not.toMatch(/tiergate/);
  });
});

/**
 * `budgets.action: "stop"` against the real Codex CLI (0.169.0) and a fake Responses API on 127.0.0.1, tiergate's
 * hooks from the shipped manifest (issue 33). A gpt-6-sol parent spawns one child and waits; the child's first
 * response carries usage that crosses a $0.0005 session budget, and an exec_command call. The fake child obeys a stop
 * and otherwise keeps calling exec_command, six requests in all. With `stop`, the child's next tool call is denied by
 * the every-tool-call hook (armed by the SessionStart hook's marker; the spend read from the child's own rollout), so
 * the child makes exactly one request after the crossing; with `deny` (the control) it runs all six.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import { decisionRecord } from '../support/decision-record.js';
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
const CHILD_STEPS = 6;

function shippedHooks(): unknown {
  const text = readFileSync(join(repo, 'hooks-codex.json'), 'utf8').replaceAll('${PLUGIN_ROOT}', repo);
  return (JSON.parse(text) as { hooks: unknown }).hooks;
}

const isChild = (q: RecordedRequest) => q.agentName !== null && q.agentName !== '/root';
const stepIds = (q: RecordedRequest) => Object.keys(q.outputs).filter((k) => k.startsWith('call_step_'));

const script: Script = (r) => {
  if (isChild(r)) {
    const steps = stepIds(r);
    const last = steps.length ? r.outputs[steps.at(-1)!]! : '';
    if (/Stop now/.test(last)) return { type: 'text', text: 'Result: stopped by the budget' };
    if (steps.length >= CHILD_STEPS - 1) return { type: 'text', text: 'Result: done' };
    return {
      type: 'call',
      name: 'exec_command',
      args: { cmd: `echo tg-step-${steps.length}` },
      callId: `call_step_${steps.length}`,
    };
  }
  const o = r.outputs;
  if (o.call_first === undefined)
    return {
      type: 'call',
      namespace: 'collaboration',
      name: 'spawn_agent',
      args: {
        task_name: 'first_child',
        message: 'CHILD_TASK: steps',
        model: 'gpt-6-sol',
        reasoning_effort: 'low',
        fork_turns: 'none',
      },
      callId: 'call_first',
    };
  if (o.call_wait === undefined)
    return {
      type: 'call',
      namespace: 'collaboration',
      name: 'wait_agent',
      args: { timeout_ms: 30000 },
      callId: 'call_wait',
    };
  return { type: 'text', text: 'parent done' };
};

const homes: CodexHome[] = [];

describe.skipIf(!found.ok)('Codex CLI: budgets.action stop stops a running child (real binary)', () => {
  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  async function run(action: 'stop' | 'deny') {
    const api = await startFakeResponsesApi(script);
    const home = makeCodexHome();
    homes.push(home);
    writeCodexConfig(home, { apiUrl: api.url, model: 'gpt-6-sol' });
    writeHooksJson(home, shippedHooks());
    writeTiergateConfig(home.tiergateHome, { budgets: { session: '0.0005', action } });
    const r = await runCodex(bin, execArgs('DEMO-PARENT: delegate'), {
      cwd: home.project,
      env: codexEnv(home),
      timeoutMs: 120_000,
    });
    await api.close();
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    // Issue 33 item 5: one `stopped` decision in the ledger for the stopped child, none without a stop.
    const stopped = decisionRecord({ TIERGATE_HOME: home.tiergateHome, HOME: home.root }).filter(
      (d) => d.kind === 'stopped',
    );
    return { child: api.requests.filter(isChild), home, stopped };
  }

  it('the child crossing the budget makes one more request, told to stop with the money', async () => {
    const { child, stopped } = await run('stop');
    expect(child).toHaveLength(2);
    expect(stopped).toHaveLength(1);
    expect(child[1]!.outputs.call_step_0).toMatch(
      /tiergate: the session budget of \$0\.0005 \(\$0\.00\d+ spent\) is spent, \$0\.00\d+ of it by this subagent so far\. Stop now/,
    );
  });

  it('control: with action deny the running child is not stopped (all its steps run)', async () => {
    const { child, stopped } = await run('deny');
    expect(stopped).toEqual([]);
    expect(child).toHaveLength(CHILD_STEPS);
  });
});

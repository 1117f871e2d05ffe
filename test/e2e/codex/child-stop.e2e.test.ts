/**
 * `budgets.action: "stop"` against the real Codex CLI (0.169.0) and a fake Responses API on 127.0.0.1, tiergate's
 * hooks from the shipped manifest (issue 33). A gpt-6-sol parent spawns one child and waits; the child's first
 * response carries usage that crosses a $0.0005 session budget, and an exec_command call. The fake child obeys a stop
 * and otherwise keeps calling exec_command, six requests in all. With `stop`, the child's next tool call is denied by
 * the every-tool-call hook (armed by the SessionStart hook's marker; the spend read from the child's own rollout), so
 * the child makes exactly one request after the crossing; with `deny` (the control) it runs all six.
 */
import { describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import { decisionRecord } from '../support/decision-record.js';
import { collaborationCall, isCodexChild as isChild, runCodexSession, spawnAgentArgs } from '../support/codex-run.js';
import type { RecordedRequest, Script } from '../support/fake-responses-api.js';

const found = harnessBin('codex');
const bin = found.ok ? found.bin : '';
const CHILD_STEPS = 6;

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
    return collaborationCall(
      'spawn_agent',
      spawnAgentArgs('first_child', 'gpt-6-sol', 'CHILD_TASK: steps'),
      'call_first',
    );
  if (o.call_wait === undefined) return collaborationCall('wait_agent', { timeout_ms: 30000 }, 'call_wait');
  return { type: 'text', text: 'parent done' };
};

describe.skipIf(!found.ok)('Codex CLI: budgets.action stop stops a running child (real binary)', () => {
  async function run(action: 'stop' | 'deny') {
    const { api, home } = await runCodexSession(bin, {
      script,
      prompt: 'DEMO-PARENT: delegate',
      tiergateConfig: { budgets: { session: '0.0005', action } },
    });
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

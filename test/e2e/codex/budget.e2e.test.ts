/**
 * Spend budgets against the real Codex CLI (0.169.0) and a fake Responses API on 127.0.0.1, tiergate's hooks from the
 * shipped manifest. A gpt-6-sol parent spawns a gpt-6-sol child (within the ceiling), waits for it, then spawns a
 * second one. The first child's reported usage crosses a session budget of $0.0005: its SubagentStop hook counts it in
 * the spend summary before the second spawn, which is then denied with a retry naming the cheap tier (Codex takes no
 * rewrite by default, `codexRewrite` off) and retried there (the API sees gpt-6-luna), or, with action deny, refused
 * (the model reads the budget). Under the budget both children run on gpt-6-sol.
 */
import { describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import {
  collaborationCall as call,
  isCodexChild,
  runCodexSession,
  spawnAgentArgs as spawn,
} from '../support/codex-run.js';
import type { Script } from '../support/fake-responses-api.js';

const found = harnessBin('codex');
const bin = found.ok ? found.bin : '';

/** Two spawns in sequence, each waited for; a blocked second spawn is retried once on the model its retry names. */
const twoInSequence: Script = (r) => {
  if (isCodexChild(r)) return { type: 'text', text: 'Result: done\nVerified: yes' };
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

describe.skipIf(!found.ok)('Codex CLI: spend budgets (real binary)', () => {
  async function run(budgets: Record<string, unknown>) {
    const { api } = await runCodexSession(bin, {
      script: twoInSequence,
      prompt: 'DEMO-PARENT: delegate twice',
      tiergateConfig: { budgets },
    });
    const children = api.requests.filter(isCodexChild).map((q) => [q.agentName, q.model]);
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

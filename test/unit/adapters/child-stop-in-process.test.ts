/**
 * `budgets.action: "stop"` in the in-process hosts (issue 33 items 4 and 5): OpenCode's child sessions
 * (src/adapters/opencode/child-stop.ts) and a pi child process (src/adapters/pi/child-stop.ts). Past a budget the
 * message states the money (the budget, the spend, this child's share, the estimate) and the child's stop is spooled
 * once, however many of its calls are refused.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OpencodeChildSpend } from '../../../src/adapters/opencode/child-stop.js';
import { PARENT_SESSION_VAR, PiChildSpend, piChildAgent } from '../../../src/adapters/pi/child-stop.js';
import { clearRuntimeCache } from '../../../src/config/runtime.js';
import { paths } from '../../../src/io/paths.js';
import { countCompletion, emptySpend, spendPath } from '../../../src/observer/spend-summary.js';
import { resetSpoolFile } from '../../../src/observer/spool.js';
import { spooledRecords } from '../../support/spool.js';

afterEach(() => {
  clearRuntimeCache();
  resetSpoolFile();
});

function home(budgets: object) {
  const root = mkdtempSync(join(tmpdir(), 'tg-inproc-stop-'));
  const tg = join(root, 'tg');
  mkdirSync(join(tg, 'config'), { recursive: true });
  writeFileSync(join(tg, 'config', 'config.json'), JSON.stringify({ budgets }));
  const env: Record<string, string> = { TIERGATE_HOME: tg, HOME: root, TIERGATE_REFRESH: 'off' };
  const spooled = () => spooledRecords(env);
  return { root, env, spooled };
}

/** Finished `agent` children at $0.02 and $0.04 in another session (median: the lower middle, $0.02). */
function finishedChildren(env: Record<string, string>, session: string, agent: string, now: number): void {
  let f = emptySpend(now);
  for (const [i, usd] of [0.02, 0.04].entries())
    f = countCompletion(f, { k: `k${i}`, s: session, at: now, pico: String(usd * 1e12), a: agent }, now);
  mkdirSync(paths(env).data, { recursive: true });
  writeFileSync(spendPath(env), JSON.stringify(f));
}

describe('OpenCode child sessions', () => {
  it('past the budget: the money with the agent estimate, and one stopped record per child session', () => {
    const h = home({ session: '0.005', action: 'stop' });
    const now = Date.now();
    finishedChildren(h.env, 'opencode:other', 'pricey', now);

    const spend = new OpencodeChildSpend();
    spend.onEvent(
      { type: 'session.created', properties: { info: { id: 'ses_child', parentID: 'ses_parent', agent: 'pricey' } } },
      h.env,
      h.root,
    );
    spend.onEvent(
      {
        type: 'message.updated',
        properties: {
          info: {
            id: 'msg_1',
            sessionID: 'ses_child',
            role: 'assistant',
            modelID: 'big',
            providerID: 'fake',
            cost: 0.0078,
            tokens: { input: 1500, output: 200, reasoning: 0, cache: { read: 0, write: 0 } },
          },
        },
      },
      h.env,
      h.root,
    );
    // The parent's own calls are never a child's.
    expect(spend.stopMessage('ses_parent', h.env, h.root, now)).toBeNull();
    const m = spend.stopMessage('ses_child', h.env, h.root, now, 'request');
    expect(m).toContain('this subagent was stopped before its next model request');
    expect(m).toContain('the session budget of $0.005 ($0.0078 spent) is spent, $0.0078 of it by this subagent so far');
    expect(m).toContain(
      'A subagent like this one costs about $0.0200 in all (the median of the finished pricey subagents: an estimate).',
    );
    expect(spend.stopMessage('ses_child', h.env, h.root, now)).toMatch(/Stop now/);
    const lines = h.spooled();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      type: 'dispatch',
      observation: {
        harness: 'opencode',
        sessionId: 'ses_parent',
        callId: 'stopped:ses_child',
        subagentType: 'pricey',
      },
      decision: { reason: 'child-stopped', detail: { kind: 'stopped' } },
    });
  });
});

describe('a pi child process', () => {
  /** The child's first response: $0.0078 by pi's own cost figure (fake/big is unknown to the catalog). */
  const firstTurn = (spend: PiChildSpend, h: { env: Record<string, string>; root: string }) =>
    spend.add(
      {
        message: {
          role: 'assistant',
          responseId: 'r1',
          provider: 'fake',
          model: 'big',
          usage: { input: 1500, output: 200, cacheRead: 0, cacheWrite: 0, cost: { total: 0.0078 } },
        },
      },
      h.env,
      h.root,
    );

  it("past the budget: the money, no agent to go by (the session's median), and one stopped record", () => {
    const h = home({ session: '0.005', action: 'stop' });
    h.env[PARENT_SESSION_VAR] = 'pi-parent';
    const spend = new PiChildSpend();
    firstTurn(spend, h);
    const m = spend.stopMessage(h.env, h.root, Date.now(), 'child-session-1');
    expect(m).toMatch(
      /^tiergate: the session budget of \$0\.005 \(\$0\.0078 spent\) is spent, \$0\.0078 of it by this/,
    );
    expect(m).toContain('No estimate of what a subagent like this one costs yet (no finished subagent to go by).');
    expect(spend.stopMessage(h.env, h.root, Date.now(), 'child-session-1')).toMatch(/Stop now/);
    const lines = h.spooled();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      observation: { harness: 'pi', sessionId: 'pi-parent', callId: 'stopped:child-session-1', subagentType: null },
      decision: { reason: 'child-stopped' },
    });
  });

  // The argv pi's example subagent tool starts a child with (0.73.1 and 1.6.0: test/e2e/pi/child-stop.e2e.test.ts).
  const childArgv = (prompt: string | null) => [
    '/usr/bin/node',
    '/x/bin/pi',
    '--mode',
    'json',
    '-p',
    '--no-session',
    '--model',
    'fake/parent',
    ...(prompt === null ? [] : ['--append-system-prompt', prompt]),
    'Task: do it',
  ];

  it('piChildAgent: the agent from the prompt file the example tool passes, else null', () => {
    expect(piChildAgent(childArgv('/tmp/pi-subagent-Ab12/prompt-worker.md'))).toBe('worker');
    expect(piChildAgent(childArgv('/tmp/pi-subagent-Ab12/prompt-code.review_2.md'))).toBe('code.review_2');
    expect(piChildAgent(childArgv('C:\\Temp\\pi-subagent-1\\prompt-scout.md'))).toBe('scout');
    // No system prompt (an agent without one, tiergate's tier tool), a prompt given as text, a flag with no value.
    expect(piChildAgent(childArgv(null))).toBeNull();
    expect(piChildAgent(childArgv('You are the worker agent.'))).toBeNull();
    expect(piChildAgent(['pi', '-p', '--append-system-prompt'])).toBeNull();
    expect(piChildAgent(childArgv('/tmp/pi-subagent-Ab12/notes.md'))).toBeNull();
  });

  it("a child whose argv names its agent: the agent's median in the message, and the stopped record names it", () => {
    const h = home({ session: '0.005', action: 'stop' });
    h.env[PARENT_SESSION_VAR] = 'pi-parent';
    const now = Date.now();
    finishedChildren(h.env, 'pi:other', 'worker', now);
    const spend = new PiChildSpend(piChildAgent(childArgv('/tmp/pi-subagent-Q/prompt-worker.md')));
    firstTurn(spend, h);
    expect(spend.stopMessage(h.env, h.root, now, 'child-session-2')).toContain(
      'A subagent like this one costs about $0.0200 in all (the median of the finished worker subagents: an estimate).',
    );
    expect(h.spooled()[0]).toMatchObject({
      observation: {
        harness: 'pi',
        callId: 'stopped:child-session-2',
        subagentType: 'worker',
        requestedAgent: 'worker',
      },
    });
  });
});

/**
 * `budgets.sessionTotal` in the in-process harnesses: pi's session entries and OpenCode's sessions summed exactly
 * (src/adapters/in-process/session-cost.ts), carried on the observation only when that budget is set.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DispatchObservation } from '../../../src/contracts/observation.js';
import { ChildSessionCosts, piSessionCost, usdTotal } from '../../../src/adapters/in-process/session-cost.js';
import { registerTiergate, type PiDeps } from '../../../src/adapters/pi/extension.js';
import { createHooks, type OpencodeClient } from '../../../src/adapters/opencode/plugin.js';
import { fixture, policyWith } from '../support/in-process.js';

const entry = (message: Record<string, unknown>) => ({ type: 'message', message });
const piCtx = (entries: unknown[]) => ({
  model: { id: 'parent', provider: 'fake' },
  cwd: '/p',
  sessionManager: { getEntries: () => entries, getSessionId: () => 'pi-s' },
});

describe("summing the harness's figures", () => {
  it('exactly: 0.1 + 0.2 is 0.3, not 0.30000000000000004; nothing numeric is null, never 0', () => {
    expect(usdTotal([0.1, 0.2])).toBe('0.3');
    expect(usdTotal([0.03825, 3e-7, 'x', -1, NaN, null])).toBe('0.0382503');
    expect(usdTotal([undefined, 'x'])).toBeNull();
  });

  it("pi: the assistant messages' cost and the children its subagent tool results report", () => {
    const entries = [
      { type: 'model_change', modelId: 'parent' },
      entry({ role: 'user', content: 'go' }),
      entry({ role: 'assistant', usage: { cost: { input: 0.0225, output: 0.015, total: 0.0375 } } }),
      entry({ role: 'toolResult', details: { results: [{ usage: { cost: 0.03825 } }, { usage: { cost: 0.001 } }] } }),
      entry({ role: 'assistant', usage: { cost: { total: 0.0045 } } }),
    ];
    expect(piSessionCost(piCtx(entries))).toBe('0.08125');
    expect(piSessionCost({})).toBeNull();
    expect(
      piSessionCost({
        sessionManager: {
          getEntries: () => {
            throw new Error('x');
          },
        },
      }),
    ).toBeNull();
  });

  it('OpenCode: children are counted once each, per parent session, bounded', () => {
    const c = new ChildSessionCosts(2, 2);
    c.add('p1', 'c1', 0.5);
    c.add('p1', 'c1', 0.5);
    c.add('p1', 'c2', 0.25);
    c.add('p1', 'c3', 1); // past maxChildren: dropped
    c.add('p2', 'c9', null);
    expect(c.costs('p1')).toEqual([0.5, 0.25]);
    c.add('p2', 'c', 1);
    c.add('p3', 'c', 1); // past maxSessions: p1 goes
    expect(c.costs('p1')).toEqual([]);
  });
});

describe('carried to the decision only when a sessionTotal budget is set', () => {
  function pi(budgets: Record<string, unknown>) {
    const seen: DispatchObservation[] = [];
    const handlers: Record<string, (e: any, c: any) => unknown> = {};
    const policy = {
      ...policyWith({ cheap: 'fake/small' }, 'pi'),
      budgets: { action: 'downshift' as const, warnAt: 0.8, ...budgets },
    };
    const d: PiDeps = {
      env: { TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-sc-')), TIERGATE_CALLBACK_DEADLINE_MS: '500' },
      argv: [],
      now: () => 1,
      route: (obs) => (
        seen.push(obs),
        { action: 'allow', reason: 'within-ceiling', summary: '', comparison: null, tier: null, diagnostics: [] }
      ),
      record: () => undefined,
      policy: () => policy,
      agents: () => new Map([['worker', { name: 'worker', model: 'fake/parent', source: 'user' as const }]]),
      defaultModel: () => null,
      refresh: () => undefined,
    };
    registerTiergate({ on: (n, h) => void (handlers[n] = h) }, d);
    return { handlers, seen };
  }

  it('pi', async () => {
    const ctx = piCtx([entry({ role: 'assistant', usage: { cost: { total: 0.25 } } })]);
    const event = () => ({
      type: 'tool_call',
      toolName: 'subagent',
      toolCallId: 'c1',
      input: { agent: 'worker', task: 't' },
    });
    const withTotal = pi({ sessionTotal: '1' });
    await withTotal.handlers.tool_call!(event(), ctx);
    expect(withTotal.seen[0]!.sessionCostUsd).toBe('0.25');
    const without = pi({ session: '1' });
    await without.handlers.tool_call!(event(), ctx);
    expect(without.seen[0]!.sessionCostUsd).toBeUndefined();
  });

  it("OpenCode: the parent session's cost plus its finished children's", async () => {
    const f = (name: string) => fixture('opencode', name);
    const sdk = f('sdk.child-session.observe.json');
    const asked: string[] = [];
    const seen: DispatchObservation[] = [];
    const client: OpencodeClient = {
      session: {
        get: async ({ path }) => (
          asked.push(path.id),
          { data: path.id === sdk.session.id ? { ...sdk.session, cost: 0.03825 } : { id: path.id, cost: 0.5 } }
        ),
        messages: async () => ({ data: sdk.messages }),
      },
    };
    const policy = {
      ...policyWith({ cheap: 'fake/small' }),
      budgets: { action: 'downshift' as const, warnAt: 0.8, sessionTotal: '10' },
    };
    const hooks = createHooks(
      { client, directory: '/project' },
      {
        env: { TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-sc-')), TIERGATE_CALLBACK_DEADLINE_MS: '500' },
        now: () => 1000,
        route: (obs) => (
          seen.push(obs),
          { action: 'allow', reason: 'within-ceiling', summary: '', comparison: null, tier: null, diagnostics: [] }
        ),
        record: () => undefined,
        policy: () => policy,
        refresh: () => undefined,
      },
    );
    await hooks.config(f('config.observe.json'));
    await hooks['chat.params'](f('chat.params.observe-parent.json').input);
    const before = f('tool.execute.before.observe.json');
    await hooks['tool.execute.before'](before.input, before.output);
    expect(seen[0]!.sessionCostUsd).toBe('0.5'); // the parent alone: no child finished yet
    const after = f('tool.execute.after.observe.json');
    await hooks['tool.execute.after'](after.input, after.output);
    await hooks['tool.execute.before'](before.input, f('tool.execute.before.observe.json').output);
    expect(seen[1]!.sessionCostUsd).toBe('0.53825');
    expect(asked[0]).toBe(before.input.sessionID);
  });
});

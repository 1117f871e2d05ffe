/**
 * `budgets.action: "stop"` at a running child's tool call (src/runtime/child-stop.ts): finished children's spend plus
 * this child's so far against the budgets; only `stop` stops; a fault fails open with a diagnostic; the wait for the
 * line of the call being checked is bounded.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clearRuntimeCache } from '../../../src/config/runtime.js';
import type { LineCost } from '../../../src/observer/child-spend.js';
import { CHILD_WAIT_MS, childStopMessage } from '../../../src/runtime/child-stop.js';

afterEach(() => clearRuntimeCache());

/** Lines `{"k","p","c"}`: p is pico-USD (1e-12). */
const lineCost = (): LineCost => (line) => {
  const o = JSON.parse(line) as { k: string; p: number; c?: string };
  return { key: o.k, pico: BigInt(o.p), calls: o.c ? [o.c] : [] };
};
const line = (k: string, usd: number, c?: string) => `${JSON.stringify({ k, p: usd * 1e12, c })}\n`;

function setup(budgets: Record<string, unknown> | null) {
  const root = mkdtempSync(join(tmpdir(), 'tg-child-stop-'));
  const home = join(root, 'tg');
  mkdirSync(join(home, 'config'), { recursive: true });
  if (budgets) writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ budgets }));
  const env = { TIERGATE_HOME: home, HOME: root, TIERGATE_REFRESH: 'off' };
  const transcript = join(root, 'agent.jsonl');
  const call = (callId: string | null = null) =>
    childStopMessage({ harness: 'claude', sessionId: 's1', transcript, cwd: root, lineCost, callId }, env);
  const diagnostics = () => {
    try {
      return readFileSync(join(home, 'data', 'diagnostics.log'), 'utf8');
    } catch {
      return '';
    }
  };
  return { env, transcript, call, diagnostics };
}

describe('childStopMessage', () => {
  it('under stop: nothing until the child itself crosses the budget, then a message with the money', async () => {
    const t = setup({ session: '0.01', action: 'stop' });
    writeFileSync(t.transcript, line('r1', 0.004));
    expect(await t.call()).toBeNull();
    appendFileSync(t.transcript, line('r2', 0.007));
    expect(await t.call()).toBe(
      'tiergate: the session budget of $0.01 ($0.0110 spent) is spent, $0.0110 of it by this subagent so far. Stop now: make no more tool calls, and reply with what you have found so far, saying that the budget stopped you. (To go on, the user can raise budgets.session in the tiergate config.)',
    );
  });

  it('deny and downshift keep their meaning: a running child is never stopped', async () => {
    for (const action of ['deny', 'downshift']) {
      const t = setup({ session: '0.01', action });
      writeFileSync(t.transcript, line('r1', 5));
      expect(await t.call()).toBeNull();
    }
  });

  it('fails open with a diagnostic when the transcript is not a file', async () => {
    const t = setup({ session: '0.01', action: 'stop' });
    mkdirSync(t.transcript);
    expect(await t.call()).toBeNull();
    expect(t.diagnostics()).toMatch(/budgets not checked in the child/);
  });

  it('waits, bounded, for the line of the call it checks; a transcript that never appears fails open', async () => {
    const t = setup({ session: '0.01', action: 'stop' });
    setTimeout(() => writeFileSync(t.transcript, line('r1', 1, 'call_1')), 100);
    const t0 = Date.now();
    expect(await t.call('call_1')).toMatch(/Stop now/);
    expect(Date.now() - t0).toBeLessThan(CHILD_WAIT_MS + 200);

    const u = setup({ session: '0.01', action: 'stop' });
    const t1 = Date.now();
    expect(await u.call('call_x')).toBeNull();
    expect(Date.now() - t1).toBeGreaterThanOrEqual(CHILD_WAIT_MS - 50);
    expect(u.diagnostics()).toMatch(/did not appear/);
  });
});

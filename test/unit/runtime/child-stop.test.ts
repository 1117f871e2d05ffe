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
import { paths } from '../../../src/io/paths.js';
import { resetSpoolFile } from '../../../src/observer/spool.js';
import { spooledRecords } from '../../support/spool.js';
import { SpoolRecordSchema } from '../../../src/contracts/spool.js';
import { countCompletion, emptySpend, spendPath, type RecentEntry } from '../../../src/observer/spend-summary.js';
import {
  CHILD_WAIT_MS,
  childStopMessage,
  recordStopOnce,
  stopEstimateText,
  stoppedRecord,
} from '../../../src/runtime/child-stop.js';

afterEach(() => {
  clearRuntimeCache();
  resetSpoolFile();
});

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
  const call = (callId: string | null = null, childId: string | null = null, agent: string | null = null) =>
    childStopMessage(
      { harness: 'claude', sessionId: 's1', childId, agent, transcript, cwd: root, lineCost, callId },
      env,
    );
  const spooled = () => spooledRecords(env);
  /** Finished children in the spend summary: [session, agent type, USD]. */
  const finished = (children: Array<[string, string | null, number]>) => {
    const now = Date.now();
    let f = emptySpend(now);
    children.forEach(([s, a, usd], i) => {
      const e: RecentEntry = { k: `claude:agent:f${i}`, s: `claude:${s}`, at: now, pico: String(usd * 1e12), a };
      f = countCompletion(f, e, now);
    });
    mkdirSync(paths(env).data, { recursive: true });
    writeFileSync(spendPath(env), JSON.stringify(f));
  };
  const diagnostics = () => {
    try {
      return readFileSync(join(home, 'data', 'diagnostics.log'), 'utf8');
    } catch {
      return '';
    }
  };
  return { env, transcript, call, diagnostics, spooled, finished };
}

describe('childStopMessage', () => {
  it('under stop: nothing until the child itself crosses the budget, then a message with the money', async () => {
    const t = setup({ session: '0.01', action: 'stop' });
    writeFileSync(t.transcript, line('r1', 0.004));
    expect(await t.call()).toBeNull();
    appendFileSync(t.transcript, line('r2', 0.007));
    expect(await t.call()).toBe(
      'tiergate: the session budget of $0.01 ($0.0110 spent) is spent, $0.0110 of it by this subagent so far. Stop now: make no more tool calls, and reply with what you have found so far, saying that the budget stopped you. No estimate of what a subagent like this one costs yet (no finished subagent to go by). (To go on, the user can raise budgets.session in the tiergate config.)',
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

  it("states the money: the budget, the spend, this child's share, and its estimate from its agent type's median", async () => {
    const t = setup({ session: '0.01', action: 'stop' });
    // Finished: two general-purpose children ($0.001, $0.003; median $0.001 by the lower middle) and an Explore one.
    t.finished([
      ['s1', 'general-purpose', 0.001],
      ['s1', 'general-purpose', 0.003],
      ['s0', 'Explore', 0.5],
    ]);
    writeFileSync(t.transcript, line('r1', 0.007));
    const m = await t.call(null, 'a1', 'general-purpose');
    expect(m).toContain('the session budget of $0.01 ($0.0110 spent) is spent');
    expect(m).toContain('$0.0070 of it by this subagent so far');
    expect(m).toContain(
      'A subagent like this one costs about $0.0010 in all (the median of the finished general-purpose subagents: an estimate).',
    );
    expect(m).toContain('raise budgets.session');
  });

  it("an agent type with no finished child: the session's median, called so", () => {
    const now = Date.now();
    const f = [0.002, 0.004, 0.006].reduce(
      (acc, usd, i) =>
        countCompletion(acc, { k: `k${i}`, s: 'codex:s1', at: now, pico: String(usd * 1e12), a: 'x' }, now),
      emptySpend(now),
    );
    expect(stopEstimateText(f, { harness: 'codex', sessionId: 's1', agent: 'default' })).toBe(
      "A subagent like this one costs about $0.0040 in all (the median of this session's finished subagents: an estimate).",
    );
    expect(stopEstimateText(null, { harness: 'codex', sessionId: 's1', agent: null })).toMatch(/^No estimate/);
  });

  it('records the stopped child once, however many of its tool calls are denied', async () => {
    const t = setup({ session: '0.01', action: 'stop' });
    writeFileSync(t.transcript, line('r1', 0.02));
    for (let i = 0; i < 3; i++) expect(await t.call(null, 'agent-7', 'general-purpose')).toMatch(/Stop now/);
    const lines = t.spooled();
    expect(lines).toHaveLength(1);
    const rec = lines[0]!;
    if (rec.type !== 'dispatch') throw new Error('not a dispatch line');
    expect(rec.decision).toMatchObject({ action: 'deny', reason: 'child-stopped', detail: { kind: 'stopped' } });
    expect(rec.observation).toMatchObject({ harness: 'claude', sessionId: 's1', callId: 'stopped:agent-7' });
    expect(rec.observation.subagentType).toBe('general-purpose');
    // Another child of the same session is its own record.
    expect(await t.call(null, 'agent-8', null)).toMatch(/Stop now/);
    expect(t.spooled()).toHaveLength(2);
  });

  it('a child under budget, or without an id, records nothing', async () => {
    const t = setup({ session: '0.01', action: 'stop' });
    writeFileSync(t.transcript, line('r1', 0.001));
    expect(await t.call(null, 'agent-1')).toBeNull();
    appendFileSync(t.transcript, line('r2', 0.02));
    expect(await t.call(null, null)).toMatch(/Stop now/);
    expect(t.spooled()).toEqual([]);
  });

  it('an in-process host decides "first" itself; a spool that cannot be written costs the record only', () => {
    const t = setup({ session: '0.01', action: 'stop' });
    const who = { harness: 'opencode' as const, sessionId: 'p1', agent: 'pricey' };
    let first = true;
    const once = () => {
      const was = first;
      first = false;
      return was;
    };
    recordStopOnce(t.env, who, 'ses_child', null, 1, once);
    recordStopOnce(t.env, who, 'ses_child', null, 2, once);
    expect(t.spooled()).toHaveLength(1);
    // The data dir's spool is a file: the append fails, a diagnostic says so, nothing throws.
    resetSpoolFile();
    const u = setup({ session: '0.01', action: 'stop' });
    mkdirSync(paths(u.env).data, { recursive: true });
    writeFileSync(paths(u.env).spoolDir, 'not a dir');
    expect(() => recordStopOnce(u.env, who, 'ses_child', null, 1)).not.toThrow();
    expect(u.diagnostics()).toMatch(/stopped child not recorded/);
  });

  it('the stopped line is a valid spool line', () => {
    const rec = stoppedRecord({ harness: 'pi', sessionId: null, agent: null }, 'c1', null, 5);
    expect(SpoolRecordSchema.safeParse(rec).success).toBe(true);
  });
});

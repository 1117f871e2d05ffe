/**
 * The parent's model and the call's id at preToolUse, from the session file (parent-model.ts): the dispatching call's
 * `tool.execution_start` line, matched by its arguments in the dispatching agent's scope, waited for a bounded time
 * because Copilot CLI 1.0.102 flushes the file behind its hooks.
 */
import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readDispatchContext, scanDispatch } from '../../../../src/adapters/copilot/parent-model.js';
import { fixture, linesThrough, sandbox, sessionLines, writeSession } from './support.js';

const SID = '9c85d76b-014b-4635-b712-c426b73f1d59';
const args = () => fixture('preToolUse.basic-task.json').payload.toolArgs as Record<string, unknown>;

describe('copilot parent model from the session file', () => {
  it("finds the call by its arguments (any key order): parent model, call id, BYOK from its turn's usage line", () => {
    const sb = sandbox();
    const path = writeSession(sb, SID, linesThrough(sessionLines(), 'tool.execution_start'));
    const shuffled = Object.fromEntries(Object.entries(args()).reverse());
    expect(scanDispatch(path, shuffled, null, 1 << 20)).toEqual({
      parentModel: 'gpt-5.4',
      callId: 'call_lab_1_0',
      byok: true,
      parentMultiplier: null,
      source: 'events-tail',
    });
  });

  it("another call's arguments, or a child's scope, are not this dispatch", () => {
    const sb = sandbox();
    const path = writeSession(sb, SID, linesThrough(sessionLines(), 'tool.execution_start'));
    expect(scanDispatch(path, { ...args(), prompt: 'another brief' }, null, 1 << 20).source).toBeNull();
    expect(scanDispatch(path, args(), 'some-child-agent', 1 << 20).source).toBeNull();
  });

  it('reads the multiplier GitHub bills when the usage line reports one', () => {
    const sb = sandbox();
    const lines = linesThrough(sessionLines(), 'tool.execution_start').map((l) =>
      l.replace('"cost":0,', '"cost":3,').replace('"isByok":true', '"isByok":false'),
    );
    const path = writeSession(sb, SID, lines);
    expect(scanDispatch(path, args(), null, 1 << 20)).toMatchObject({ byok: false, parentMultiplier: 3 });
  });

  it('waits for a line written behind the hook, bounded', async () => {
    const sb = sandbox();
    const all = linesThrough(sessionLines(), 'tool.execution_start');
    const path = writeSession(sb, SID, all.slice(0, -1));
    setTimeout(() => appendFileSync(path, `${all.at(-1)}\n`), 120);
    const t0 = Date.now();
    const r = await readDispatchContext([path], args(), null, { maxBytes: 1 << 20, waitMs: 2000, pollMs: 10 });
    expect(r.parentModel).toBe('gpt-5.4');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it("gives up after the wait: unknown, never an older turn's model", async () => {
    const sb = sandbox();
    const path = writeSession(sb, SID, linesThrough(sessionLines(), 'tool.execution_start').slice(0, -1));
    const t0 = Date.now();
    const r = await readDispatchContext([path], args(), null, { maxBytes: 1 << 20, waitMs: 150, pollMs: 10 });
    expect(r).toEqual({ parentModel: null, callId: null, byok: null, parentMultiplier: null, source: null });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('a session folder that does not exist is not waited for', async () => {
    const sb = sandbox();
    const t0 = Date.now();
    const r = await readDispatchContext([`${sb.copilotHome}/session-state/nope/events.jsonl`], args(), null, {
      maxBytes: 1 << 20,
      waitMs: 2000,
    });
    expect(r.source).toBeNull();
    expect(Date.now() - t0).toBeLessThan(100);
  });
});

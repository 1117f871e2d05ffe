/**
 * The incremental read of a running child's transcript (src/observer/child-spend.ts): an offset per file in the data
 * dir, only whole lines appended since counted, a response's snapshot lines counted once at their largest, a replaced or
 * truncated file counted again, bounded by size and deadline, and never a link followed in the data dir.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childSpendStatePath, readChildSpend, type LineCost } from '../../../src/observer/child-spend.js';

/** Test lines: `{"k":"<key>","p":<pico>}`; `p: null` is unpriced; `c` a call id. */
const cost: LineCost = (line) => {
  let o: { k?: string; p?: number | null; c?: string };
  try {
    o = JSON.parse(line) as typeof o;
  } catch {
    return null;
  }
  return { key: o.k ?? null, pico: o.p === null || o.p === undefined ? null : BigInt(o.p), calls: o.c ? [o.c] : [] };
};
const line = (k: string, p: number | null, c?: string) => `${JSON.stringify({ k, p, c })}\n`;

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'tg-child-spend-'));
  const env = { TIERGATE_HOME: join(root, 'tg') };
  const file = join(root, 'agent.jsonl');
  const read = (maxBytes = 1 << 20, deadline = Date.now() + 10_000) =>
    readChildSpend(env, file, cost, { maxBytes, deadline });
  return { root, env, file, read, done: () => rmSync(root, { recursive: true, force: true }) };
}

describe('readChildSpend', () => {
  it('reads only the bytes appended since the last check, and sums across checks', () => {
    const t = setup();
    writeFileSync(t.file, line('a', 100) + line('b', 50));
    const first = t.read();
    expect(first.pico).toBe(150n);
    expect(first.read).toBe(readFileSync(t.file).length);
    const more = line('c', 7, 'call_1');
    appendFileSync(t.file, more);
    const second = t.read();
    expect(second.pico).toBe(157n);
    expect(second.read).toBe(Buffer.byteLength(more));
    expect(second.calls).toContain('call_1');
    expect(t.read().read).toBe(0);
    t.done();
  });

  it('leaves a line still being written for the next check', () => {
    const t = setup();
    writeFileSync(t.file, `${line('a', 10)}{"k":"b","p":5`);
    expect(t.read().pico).toBe(10n);
    appendFileSync(t.file, '}\n');
    expect(t.read().pico).toBe(15n);
    t.done();
  });

  it("counts a response's lines once, at the largest cost; an unpriced one as unknown until priced", () => {
    const t = setup();
    writeFileSync(t.file, line('r1', 10) + line('r1', 30) + line('r1', 20) + line('r2', null));
    expect(t.read()).toMatchObject({ pico: 30n, unknown: 1 });
    appendFileSync(t.file, line('r2', 4));
    expect(t.read()).toMatchObject({ pico: 34n, unknown: 0 });
    t.done();
  });

  it('counts a replaced or truncated file from its start', () => {
    const t = setup();
    writeFileSync(t.file, line('a', 100) + line('b', 100));
    expect(t.read().pico).toBe(200n);
    rmSync(t.file);
    writeFileSync(t.file, line('x', 1));
    expect(t.read().pico).toBe(1n);
    writeFileSync(t.file, ''); // same inode, shorter than the offset
    appendFileSync(t.file, line('y', 2));
    expect(t.read().pico).toBe(2n);
    t.done();
  });

  it('reads at most maxBytes per check and goes on from there at the next', () => {
    const t = setup();
    const body = Array.from({ length: 100 }, (_, i) => line(`k${i}`, 1)).join('');
    writeFileSync(t.file, body);
    const first = t.read(200);
    expect(first.complete).toBe(false);
    expect(first.read).toBeLessThanOrEqual(200);
    let last = first;
    for (let i = 0; i < 100 && !last.complete; i++) last = t.read(200);
    expect(last.pico).toBe(100n);
    t.done();
  });

  it('stops at the deadline without losing its place', () => {
    const t = setup();
    writeFileSync(t.file, line('a', 1));
    const r = t.read(1 << 20, Date.now() - 1);
    expect(r).toMatchObject({ complete: false, read: 0, pico: 0n });
    expect(t.read().pico).toBe(1n);
    t.done();
  });

  it('skips a line longer than the window instead of stalling on it', () => {
    const t = setup();
    writeFileSync(t.file, `{"k":"big","p":1,"pad":"${'x'.repeat(500)}"}\n${line('after', 3)}`);
    let r = t.read(100);
    let skipped = r.skipped;
    for (let i = 0; i < 20 && !r.complete; i++) {
      r = t.read(100);
      skipped += r.skipped;
    }
    expect(skipped).toBeGreaterThan(0);
    expect(r.pico).toBe(3n);
    t.done();
  });

  it('counts again from the start when the offset file is torn or damaged', () => {
    const t = setup();
    writeFileSync(t.file, line('a', 5) + line('b', 6));
    expect(t.read().pico).toBe(11n);
    writeFileSync(childSpendStatePath(t.env, t.file), '{"format":"tiergate-child-spend/1","pa');
    expect(t.read()).toMatchObject({ pico: 11n, read: readFileSync(t.file).length });
    t.done();
  });

  it('never writes through a link planted as the offset file', () => {
    const t = setup();
    writeFileSync(t.file, line('a', 1));
    const state = childSpendStatePath(t.env, t.file);
    mkdirSync(join(state, '..'), { recursive: true });
    const target = join(t.root, 'target.json');
    writeFileSync(target, 'untouched');
    symlinkSync(target, state);
    expect(() => t.read()).toThrow();
    expect(readFileSync(target, 'utf8')).toBe('untouched');
    t.done();
  });
});

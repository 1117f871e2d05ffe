/**
 * The summary's digest (src/observer/spend-digest.ts): a dispatch reads the digest and its own session's line instead
 * of the whole summary, so every figure it draws from the view must be the one the whole summary gives, and anything
 * short of a well-formed digest must fall back to the whole summary.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDigest, summaryText } from '../../../src/observer/spend-digest.js';
import { writeFold } from '../../../src/observer/spend-fold.js';
import { NO_HELD, withHeld, type HeldLine } from '../../../src/observer/spend-held.js';
import { readSpendWith } from '../../../src/observer/spend-read.js';
import {
  askBasis,
  emptySpend,
  estimateCost,
  parseSpend,
  RESERVATION_TTL_MS,
  spendPath,
  spendStateFrom,
  type RecentEntry,
  type SpendFile,
} from '../../../src/observer/spend-summary.js';

/** A small deterministic generator (mulberry32), so a failing file can be made again. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const now = Date.now();
// Keys a file may hold: a quote, a backslash, a newline, a prototype's name, one key the tail of another.
const SESSIONS = [
  'claude:s1',
  'claude:s2',
  'codex:s3',
  'claude:x"claude:s1',
  'claude:a\\b',
  'claude:n\nl',
  'claude:__proto__',
];
const AGENTS = ['general-purpose', 'Explore', 'constructor', '__proto__'];
const MODELS = ['opus', 'sonnet', 'haiku', 'toString'];

function randomFile(seed: number): SpendFile {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const maybe = <T>(x: T): T | undefined => (r() < 0.7 ? x : undefined);
  const f = emptySpend(now);
  f.day.pico = String(Math.floor(r() * 1e12));
  f.month.pico = String(Math.floor(r() * 1e13));
  const recent: RecentEntry[] = [];
  const n = Math.floor(r() * 40);
  for (let i = 0; i < n; i++) {
    const e: RecentEntry = {
      k: `k${i}`,
      s: r() < 0.9 ? pick(SESSIONS) : null,
      at: now - i,
      // Ties on purpose (few distinct costs): the median child's model must be the same pick either way.
      pico: r() < 0.15 ? null : String(Math.floor(r() * 5) * 1000 + 7),
    };
    const a = maybe(pick(AGENTS));
    const m = maybe(pick(MODELS));
    if (a !== undefined) e.a = a;
    if (m !== undefined) e.m = m;
    recent.push(e);
  }
  f.recent = recent;
  for (const s of SESSIONS)
    if (r() < 0.6) f.sessions[s] = { pico: String(Math.floor(r() * 1e9)), unknown: Math.floor(r() * 3), last: now };
  if (r() < 0.7)
    f.started = Object.fromEntries(
      SESSIONS.filter(() => r() < 0.5).map((s) => [s, { n: 1 + Math.floor(r() * 4), last: now }]),
    );
  f.reserved = Array.from({ length: Math.floor(r() * 5) }, (_, i) => ({
    c: `c${i}`,
    s: pick(SESSIONS),
    at: now - i,
    until: r() < 0.8 ? now + RESERVATION_TTL_MS : now - 1,
    pico: String(Math.floor(r() * 1e6)),
    ...(r() < 0.2 ? { unknown: 1 as const } : {}),
  }));
  f.heldGen = Math.floor(r() * 3);
  return f;
}

/** The file as a writer leaves it and a whole-file reader gets it back. */
const roundTrip = (f: SpendFile): SpendFile => parseSpend(summaryText(f)) as SpendFile;

describe('summary digest', () => {
  it('the text is the summary, one JSON document: a whole-file reader gets the same file, no digest in it', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const f = randomFile(seed);
      const text = summaryText(f);
      expect(JSON.parse(text)).toHaveProperty('digest');
      expect(parseSpend(text)).toEqual(f);
    }
  });

  it('a view gives every figure the whole summary gives: spend, fan-out, estimates, ask bases (200 files)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const f = randomFile(seed);
      const text = summaryText(f);
      const held: HeldLine[] = [
        { c: 'h1', s: 'claude:s1', at: now, until: now + RESERVATION_TTL_MS, pico: '5', g: f.heldGen ?? 0, st: 1 },
        { c: 'h2', s: 'codex:s3', at: now, until: now + RESERVATION_TTL_MS, pico: '9', g: (f.heldGen ?? 0) + 1 },
      ];
      for (const key of [...SESSIONS, 'claude:absent', null]) {
        const view = readDigest(text, key);
        expect(view, `seed ${seed}`).not.toBeNull();
        const whole = withHeld(roundTrip(f), held);
        const seen = withHeld(view!, held);
        const [harness, id] =
          key === null ? [null, null] : [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
        const state = (file: SpendFile) =>
          spendStateFrom({ file, error: null }, harness as 'claude' | null, id, now + 1, null);
        expect(state(seen), `seed ${seed} key ${key}`).toEqual(state(whole));
        for (const agent of [...AGENTS, 'nobody', null])
          for (const model of [...MODELS, null])
            for (const reserve of [null, 123n]) {
              const input = { session: key, agent, model, reserve };
              expect(
                estimateCost(seen, input),
                `seed ${seed} ${JSON.stringify(input, (_, v) => (typeof v === 'bigint' ? `${v}` : v))}`,
              ).toBe(estimateCost(whole, input));
            }
        for (const agent of [...AGENTS, null])
          expect(askBasis(seen, { session: key, agent })).toEqual(askBasis(whole, { session: key, agent }));
      }
    }
  });

  it('a key that ends another key (a quote before it) finds its own line, not the other one', () => {
    const f = emptySpend(now);
    f.sessions = { 'claude:x"claude:s1': { pico: '111', unknown: 0, last: now } };
    expect(readDigest(summaryText(f), 'claude:s1')!.sessions).toEqual({});
    f.sessions['claude:s1'] = { pico: '222', unknown: 1, last: now };
    expect(readDigest(summaryText(f), 'claude:s1')!.sessions['claude:s1']).toMatchObject({ pico: '222', unknown: 1 });
  });

  it('no digest, or one that fails a check: null, and the reader parses the whole summary instead', () => {
    const f = randomFile(7);
    f.sessions['claude:s1'] = { pico: '222', unknown: 0, last: now };
    const text = summaryText(f);
    expect(readDigest(JSON.stringify(f), 'claude:s1')).toBeNull();
    expect(readDigest(text.replace('"heldGen":', '"heldGen":"x","was":'), 'claude:s1')).toBeNull();
    expect(readDigest(text.replace('"claude:s1":["222"', '"claude:s1":["2x2"'), 'claude:s1')).toBeNull();
    expect(readDigest(text.replace('\n"digestSessions"', '"digestSessions"'), 'claude:s1')).toBeNull();
    // Through the dispatch's read: the same spend from a summary without its digest as from one with it.
    const dir = mkdtempSync(join(tmpdir(), 'tg-digest-'));
    const env = { TIERGATE_HOME: join(dir, 'tg'), HOME: dir };
    mkdirSync(join(dir, 'tg', 'data'), { recursive: true });
    const figures = () => {
      const read = readSpendWith(env, now + 1, null, { session: 'claude:s1' });
      return spendStateFrom(read, 'claude', 's1', now + 1, null);
    };
    writeFileSync(spendPath(env), text, { mode: 0o600 });
    const viewed = figures();
    expect(readSpendWith(env, now + 1, null, { session: 'claude:s1' }).file?.basis).toBeDefined();
    writeFileSync(spendPath(env), JSON.stringify(f), { mode: 0o600 });
    expect(readSpendWith(env, now + 1, null, { session: 'claude:s1' }).file?.basis).toBeUndefined();
    expect(figures()).toEqual(viewed);
    expect(viewed.session?.pico).toBe(
      222n +
        (f.reserved ?? [])
          .filter((r) => r.s === 'claude:s1' && r.until > now + 1)
          .reduce((t, r) => t + BigInt(r.pico), 0n),
    );
  });

  it('reservations summed by the writer: a view only while the sums are what the list gives, else the whole summary', () => {
    const f = emptySpend(now);
    const r = (c: string, s: string | null, pico: string, until: number, at = now) => ({ c, s, at, until, pico });
    f.reserved = [
      r('a', 'claude:s1', '5', now + 100),
      r('b', 'claude:s1', '7', now + 50),
      r('c', 'codex:s3', '11', now + 100),
      r('d', null, '13', now + 100),
      r('e', 'claude:s1', '1000', now), // expired when written: counted by no reader
      r('f', 'claude:s1', '17', now + 100, f.day.start - 1), // made before the summary's day: not today's
    ];
    const text = summaryText(f);
    const view = readDigest(text, 'claude:s1', now + 10)!;
    expect(view.reserved).toEqual([]);
    const state = spendStateFrom({ file: view, error: null }, 'claude', 's1', now + 10, null);
    expect(state).toEqual(spendStateFrom({ file: roundTrip(f), error: null }, 'claude', 's1', now + 10, null));
    expect(state.session?.pico).toBe(29n);
    expect(state.fanout?.running).toBe(3);
    expect(state.day.pico).toBe(36n);
    // At or past the earliest `until` (b's), before the summary was written, or past its day: not a view.
    expect(readDigest(text, 'claude:s1', now + 50)).toBeNull();
    expect(readDigest(text, 'claude:s1', now - 1)).toBeNull();
    expect(readDigest(text, 'claude:s1', f.day.end)).toBeNull();
  });

  it('a view is never written as the summary (it holds one session and no completions)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-digest-'));
    const env = { TIERGATE_HOME: join(dir, 'tg'), HOME: dir };
    const f = randomFile(3);
    writeFold(env, f, null, NO_HELD, []);
    const before = readFileSync(spendPath(env), 'utf8');
    const view = readDigest(before, 'claude:s1')!;
    expect(() => writeFold(env, view, null, NO_HELD, [])).toThrow(/view/);
    expect(readFileSync(spendPath(env), 'utf8')).toBe(before);
    expect(parseSpend(before)).toEqual({ ...f, heldGen: 1 });
  });
});

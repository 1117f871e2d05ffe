/**
 * The reservations held as appended lines (src/observer/spend-held.ts) instead of a rewrite of the summary per dispatch:
 * every reader counts them, a fold takes them into the summary (every FOLD_EVERY-th dispatch, a journal, a torn line,
 * a merge), and generations keep a fold between a reader's two reads from counting a line twice or not at all.
 */
import { mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../../src/contracts/decision.js';
import type { DispatchObservation } from '../../../src/contracts/observation.js';
import { FOLD_EVERY, heldLineText, parseHeld, withHeld, type HeldLine } from '../../../src/observer/spend-held.js';
import { journalCompletion } from '../../../src/observer/spend-journal.js';
import { heldPath, readSpend, readSpendFile, readSpendWith } from '../../../src/observer/spend-read.js';
import { mergeSpend } from '../../../src/observer/spend-record.js';
import { decideReserving } from '../../../src/observer/spend-reserve.js';
import {
  countCompletion,
  emptySpend,
  RESERVATION_TTL_MS,
  spendPath,
  type Reservation,
  type SpendFile,
} from '../../../src/observer/spend-summary.js';

function tempHome() {
  const dir = mkdtempSync(join(tmpdir(), 'tg-held-'));
  const env = { TIERGATE_HOME: join(dir, 'tg'), HOME: dir };
  mkdirSync(join(dir, 'tg', 'data'), { recursive: true });
  return { dir, env };
}

const S = 'claude:sess-1';
const now = Date.now();
const res = (c: string, pico = '100'): Reservation => ({
  c,
  s: S,
  at: now,
  until: now + RESERVATION_TTL_MS,
  pico,
  h: 'claude',
});
const ALLOW = { action: 'allow', reason: 'within-ceiling', diagnostics: [] } as unknown as Decision;
const obs = (callId: string): DispatchObservation =>
  ({ harness: 'claude', sessionId: 'sess-1', callId, subagentType: null, at: Date.now() }) as DispatchObservation;
/** One dispatch through the budget path: allowed, its reservation held (the session's mean, else budgets.reserve). */
const dispatch = (env: Record<string, string>, callId: string, countsChildren = false) =>
  decideReserving(
    env,
    obs(callId),
    { session: '5', reserve: '0.0001', action: 'deny', warnAt: 0.8 },
    () => ALLOW,
    () => 'opus',
    countsChildren,
  );
const summary = (env: Record<string, string>) => JSON.parse(readFileSync(spendPath(env), 'utf8')) as SpendFile;
const reservedCalls = (env: Record<string, string>) => (readSpendFile(env).file?.reserved ?? []).map((r) => r.c).sort();

describe('held lines', () => {
  it('parse: whole lines counted, a torn or foreign line marks the file cut (and is not counted)', () => {
    const a = heldLineText(res('a'), 0, false);
    const b = heldLineText(res('b'), 0, true);
    expect(parseHeld(a + b)).toMatchObject({ count: 2, cut: false });
    expect(parseHeld(a + b).lines.map((l) => [l.c, l.st])).toEqual([
      ['a', undefined],
      ['b', 1],
    ]);
    expect(parseHeld(a + b.slice(0, 20))).toMatchObject({ count: 2, cut: true, lines: [{ c: 'a' }] });
    expect(parseHeld(`${a}{"g":0,"pico":"x"}\n`)).toMatchObject({ count: 2, cut: true });
    expect(parseHeld(`${a}not json\n`)).toMatchObject({ count: 2, cut: true });
    expect(parseHeld('')).toMatchObject({ count: 0, cut: false, lines: [] });
  });

  it("a summary counts only its own generation's lines; a started line counts a child started", () => {
    const f: SpendFile = { ...emptySpend(now), heldGen: 3 };
    const lines = [res('old'), res('mine'), res('mine2')].map(
      (r, i): HeldLine => ({ ...r, g: i === 0 ? 2 : 3, ...(i === 2 ? { st: 1 as const } : {}) }),
    );
    const seen = withHeld(f, lines);
    expect(seen.reserved!.map((r) => r.c)).toEqual(['mine', 'mine2']);
    expect(seen.reserved![0]).not.toHaveProperty('g');
    expect(seen.started).toEqual({ [S]: { n: 1, last: now } });
    expect(f.reserved).toBeUndefined(); // left as it was
    expect(withHeld(f, [lines[0]!])).toBe(f);
  });

  it('a fold between the two reads of a reader counts each reservation once', () => {
    // Before the fold: the summary at generation 0, two lines of it. After: the summary holds them, generation 1.
    const before: SpendFile = { ...emptySpend(now), heldGen: 0 };
    const lines: HeldLine[] = [res('a'), res('b')].map((r) => ({ ...r, g: 0 }));
    const after: SpendFile = { ...before, reserved: [res('a'), res('b')], heldGen: 1 };
    // The reader read the lines before the fold and the summary after it: the lines are an older generation.
    for (const f of [withHeld(before, lines), withHeld(after, lines), withHeld(after, [])])
      expect(f.reserved!.map((r) => r.c)).toEqual(['a', 'b']);
  });
});

describe('a dispatch under a budget', () => {
  it('appends one line and leaves the summary as it was; every reader counts it', () => {
    const { env } = tempHome();
    const f = countCompletion(emptySpend(now), { k: 'claude:agent:x', s: S, at: now, pico: '500' }, now);
    writeFileSync(spendPath(env), JSON.stringify(f), { mode: 0o600 });
    const before = readFileSync(spendPath(env), 'utf8');
    expect(dispatch(env, 'toolu_1').action).toBe('allow');
    expect(dispatch(env, 'toolu_2', true).action).toBe('allow');
    expect(readFileSync(spendPath(env), 'utf8')).toBe(before);
    expect(readFileSync(heldPath(env), 'utf8').trim().split('\n')).toHaveLength(2);
    expect(statSync(heldPath(env)).mode & 0o777).toBe(0o600);
    // The session's estimate is its mean ($500 pico): two running children at it, plus the finished one.
    expect(readSpend(env, 'claude', 'sess-1', Date.now()).session).toEqual({ pico: 1500n, unknown: 0 });
    expect(readSpendFile(env).file!.started).toEqual({ [S]: { n: 1, last: expect.any(Number) } });
  });

  it(`the ${FOLD_EVERY}nd dispatch folds: the summary takes the lines in, the next generation, an empty held file`, () => {
    const { env } = tempHome();
    writeFileSync(spendPath(env), JSON.stringify(emptySpend(now)), { mode: 0o600 });
    for (let i = 1; i < FOLD_EVERY; i++) dispatch(env, `toolu_${i}`);
    expect(summary(env).reserved ?? []).toHaveLength(0);
    expect(reservedCalls(env)).toHaveLength(FOLD_EVERY - 1);
    dispatch(env, `toolu_${FOLD_EVERY}`);
    expect(summary(env).reserved).toHaveLength(FOLD_EVERY);
    expect(summary(env).heldGen).toBe(1);
    expect(readFileSync(heldPath(env), 'utf8')).toBe('');
    expect(reservedCalls(env)).toHaveLength(FOLD_EVERY);
    dispatch(env, 'toolu_next');
    expect(readFileSync(heldPath(env), 'utf8')).toContain('"g":1');
    expect(reservedCalls(env)).toHaveLength(FOLD_EVERY + 1);
  });

  it('a torn line is never appended onto: the next dispatch folds, dropping it; lines a fold could not remove count once', () => {
    const { env } = tempHome();
    writeFileSync(spendPath(env), JSON.stringify(emptySpend(now)), { mode: 0o600 });
    dispatch(env, 'toolu_a');
    writeFileSync(heldPath(env), `${readFileSync(heldPath(env), 'utf8')}{"c":"toolu_dead","s":`, { mode: 0o600 });
    dispatch(env, 'toolu_b');
    expect(readFileSync(heldPath(env), 'utf8')).toBe('');
    expect(summary(env).reserved!.map((r) => r.c)).toEqual(['toolu_a', 'toolu_b']);
    // A fold that wrote the summary but could not empty the file: its lines (generation 0) are not counted again.
    writeFileSync(heldPath(env), heldLineText(res('toolu_a'), 0, false), { mode: 0o600 });
    expect(reservedCalls(env)).toEqual(['toolu_a', 'toolu_b']);
  });

  it('a journaled completion makes the dispatch fold, settling its own held reservation', () => {
    const { env } = tempHome();
    writeFileSync(spendPath(env), JSON.stringify(emptySpend(now)), { mode: 0o600 });
    dispatch(env, 'toolu_a');
    journalCompletion(env, { k: 'claude:agent:a', s: S, at: Date.now(), pico: '700', c: 'toolu_a' });
    // Read before any fold: the completion settles the held reservation in the reader's view too.
    expect(readSpend(env, 'claude', 'sess-1', Date.now()).session).toEqual({ pico: 700n, unknown: 0 });
    dispatch(env, 'toolu_b');
    expect(readFileSync(heldPath(env), 'utf8')).toBe('');
    expect(summary(env).reserved!.map((r) => r.c)).toEqual(['toolu_b']);
    expect(readSpend(env, 'claude', 'sess-1', Date.now()).session).toEqual({ pico: 1400n, unknown: 0 });
  });

  it("a merge takes the held lines in before counting the completions, so each settles its dispatch's reservation", () => {
    const { env } = tempHome();
    writeFileSync(spendPath(env), JSON.stringify(emptySpend(now)), { mode: 0o600 });
    dispatch(env, 'toolu_a');
    dispatch(env, 'toolu_b');
    journalCompletion(env, { k: 'claude:agent:a', s: S, at: Date.now(), pico: '700', c: 'toolu_a' });
    expect(mergeSpend(env)).toBe(true);
    expect(readFileSync(heldPath(env), 'utf8')).toBe('');
    expect(summary(env)).toMatchObject({ heldGen: 1, reserved: [{ c: 'toolu_b' }] });
    // toolu_b still held at budgets.reserve ($0.0001: no child of the session had finished when it was dispatched).
    expect(readSpend(env, 'claude', 'sess-1', Date.now()).session).toEqual({ pico: 700n + 100_000_000n, unknown: 0 });
  });

  it('a link in place of the held file is refused, never followed: the budgets fail open for that read', () => {
    const { dir, env } = tempHome();
    writeFileSync(spendPath(env), JSON.stringify(emptySpend(now)), { mode: 0o600 });
    const elsewhere = join(dir, 'elsewhere');
    writeFileSync(elsewhere, heldLineText(res('planted', '999999'), 0, false));
    symlinkSync(elsewhere, heldPath(env));
    expect(readSpendWith(env, Date.now()).error).toMatch(/held reservations unreadable: refused: symbolic link/);
    const d = dispatch(env, 'toolu_a');
    expect(d.action).toBe('allow');
    expect(readFileSync(elsewhere, 'utf8')).not.toContain('toolu_a');
  });
});

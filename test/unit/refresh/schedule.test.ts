import { describe, expect, it } from 'vitest';
import { isDue, nextDueAt, retryAfterMs } from '../../../src/refresh/schedule.js';
import { blankSourceStatus, type SourceStatus } from '../../../src/refresh/status.js';

const H = 3_600_000;
const TTL = 24 * H;
const T0 = Date.parse('2026-12-02T10:00:00Z');
const at = (ms: number) => new Date(ms).toISOString();
const st = (over: Partial<SourceStatus>): SourceStatus => ({
  ...blankSourceStatus({ name: 's', url: 'https://x.test/', format: 'openrouter' }),
  ...over,
});

describe('refresh schedule', () => {
  it('a source never tried is due', () => {
    expect(isDue(undefined, T0, TTL, false)).toBe(true);
    expect(isDue(st({}), T0, TTL, false)).toBe(true);
  });

  it('after a success it waits the TTL', () => {
    const ok = st({ lastAttemptAt: at(T0), consecutiveFailures: 0 });
    expect(isDue(ok, T0 + TTL - 1, TTL, true)).toBe(false);
    expect(isDue(ok, T0 + TTL, TTL, true)).toBe(true);
    expect(nextDueAt(ok, T0 + H, TTL, true)).toBe(T0 + TTL);
  });

  it('a success whose catalog has gone is due again', () => {
    expect(isDue(st({ lastAttemptAt: at(T0) }), T0 + 1, TTL, false)).toBe(true);
  });

  it('failures back off 1 h, 2 h, 4 h … capped at the TTL', () => {
    expect([1, 2, 3, 4, 5, 6, 40].map((n) => retryAfterMs(st({ consecutiveFailures: n }), TTL) / H)).toEqual([
      1, 2, 4, 8, 16, 24, 24,
    ]);
    const failed = st({ lastAttemptAt: at(T0), consecutiveFailures: 2, lastError: 'x' });
    expect(isDue(failed, T0 + 2 * H - 1, TTL, true)).toBe(false);
    expect(isDue(failed, T0 + 2 * H, TTL, true)).toBe(true);
  });

  it('a marker from the future or unreadable does not block forever', () => {
    expect(isDue(st({ lastAttemptAt: at(T0 + H) }), T0, TTL, true)).toBe(true);
    expect(isDue(st({ lastAttemptAt: 'yesterday' }), T0, TTL, true)).toBe(true);
  });
});

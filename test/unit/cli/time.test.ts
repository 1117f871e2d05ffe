/** --since/--until in a time zone (issue 21): local days by default, --until inclusive, impossible dates refused. */
import { describe, expect, it } from 'vitest';
import { parseTime } from '../../../src/cli/time.js';
import { canonicalZone, dayIn, offsetSegments, startOfDay } from '../../../src/report/zone.js';

const now = Date.parse('2026-11-20T12:00:00Z');
const at = (iso: string) => Date.parse(iso);

describe('parseTime in a zone', () => {
  it('reads a day as its midnight in the zone, and --until as the end of that day', () => {
    expect(parseTime('2026-03-01', now, 'Europe/Berlin')).toBe(at('2026-02-28T23:00:00Z'));
    expect(parseTime('2026-03-01', now, 'America/New_York')).toBe(at('2026-03-01T05:00:00Z'));
    expect(parseTime('2026-03-01', now, 'UTC', 'until')).toBe(at('2026-03-02T00:00:00Z'));
    // Berlin moves to summer time on 2026-03-29: the 31st ends at 22:00 UTC, not 23:00.
    expect(parseTime('2026-03-31', now, 'Europe/Berlin', 'until')).toBe(at('2026-03-31T22:00:00Z'));
    // New York's 2026-03-08 has 23 hours.
    expect(
      parseTime('2026-03-08', now, 'America/New_York', 'until')! - parseTime('2026-03-08', now, 'America/New_York')!,
    ).toBe(23 * 3_600_000);
    expect(parseTime('20260301', now, 'Asia/Kolkata')).toBe(at('2026-02-28T18:30:00Z'));
  });

  it('reads a time without an offset in the zone, with one as given; --until includes that instant', () => {
    expect(parseTime('2026-03-01T14:00', now, 'Europe/Berlin')).toBe(at('2026-03-01T13:00:00Z'));
    expect(parseTime('2026-03-01 14:00:30', now, 'UTC')).toBe(at('2026-03-01T14:00:30Z'));
    expect(parseTime('2026-03-01T14:00Z', now, 'Europe/Berlin')).toBe(at('2026-03-01T14:00:00Z'));
    expect(parseTime('2026-03-01T14:00+05:30', now, 'Europe/Berlin')).toBe(at('2026-03-01T08:30:00Z'));
    expect(parseTime('2026-03-01T14:00Z', now, 'UTC', 'until')).toBe(at('2026-03-01T14:00:00Z') + 1);
    expect(parseTime('7d', now, 'Europe/Berlin')).toBe(now - 7 * 86_400_000);
  });

  it('refuses what is not a date instead of guessing', () => {
    for (const bad of [
      '2026-13-45',
      '2026-02-30',
      '2026-04-31',
      '2026-03-01T24:00',
      '2026-03-01T14:61',
      'hello 5',
      'March 7',
      '2026/03/01',
      '1 2',
      '2026-3-1',
      '2026-03-01T14:00+25:00',
    ]) {
      expect({ bad, t: parseTime(bad, now, 'UTC') }).toEqual({ bad, t: undefined });
    }
    expect(parseTime('2028-02-29', now, 'UTC')).toBe(at('2028-02-29T00:00:00Z'));
  });
});

describe('zone helpers', () => {
  it('finds each daylight-saving change to the millisecond', () => {
    const segs = offsetSegments('America/New_York', at('2026-01-01T00:00:00Z'), at('2026-12-31T00:00:00Z'));
    expect(segs).toEqual([
      { until: at('2026-03-08T07:00:00Z'), offset: -5 * 3_600_000 },
      { until: at('2026-11-01T06:00:00Z'), offset: -4 * 3_600_000 },
      { until: null, offset: -5 * 3_600_000 },
    ]);
    expect(offsetSegments('UTC', 0, at('2030-01-01T00:00:00Z'))).toEqual([{ until: null, offset: 0 }]);
  });

  it('names days in the zone and canonicalises zone names', () => {
    expect(dayIn('America/Los_Angeles', at('2026-03-02T03:00:00Z'))).toBe('2026-03-01');
    expect(dayIn('Asia/Tokyo', at('2026-03-01T16:00:00Z'))).toBe('2026-03-02');
    expect(canonicalZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalZone('Mars/Olympus')).toBeNull();
    // Chile skips midnight when its clocks go forward (2026-09-06): the day starts at 01:00.
    expect(dayIn('America/Santiago', startOfDay('America/Santiago', '2026-09-06')!)).toBe('2026-09-06');
    expect(dayIn('America/Santiago', startOfDay('America/Santiago', '2026-09-06')! - 1)).toBe('2026-09-05');
  });
});

/**
 * Time arguments for --since/--until: a day (YYYY-MM-DD or YYYYMMDD), a date and time (YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]),
 * or a relative 7d / 12h / 30m. A day or a time without an offset is read in the report's time zone (the local one
 * unless --timezone says otherwise). `--until` is inclusive: a day runs to its end, a time to that very millisecond.
 * Anything else is refused (undefined), not guessed: Date.parse reads 'hello 5' as May 2001.
 */
import { instantOfWall, startOfDay, startOfNextDay } from '../report/zone.js';

export type Edge = 'since' | 'until';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function dateTime(text: string, zone: string): number | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s = '0', frac = '0'] = m.slice(1, 8) as string[];
  const n = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const wall = Date.UTC(n[0], n[1] - 1, n[2], n[3], n[4], n[5], Number(frac!.padEnd(3, '0')));
  const w = new Date(wall);
  // Date.UTC rolls 2026-02-30 over to March and 25:00 to the next day; a date that rolled is not one the user meant.
  if (
    w.getUTCFullYear() !== n[0] ||
    w.getUTCMonth() !== n[1] - 1 ||
    w.getUTCDate() !== n[2] ||
    w.getUTCHours() !== n[3] ||
    w.getUTCMinutes() !== n[4] ||
    w.getUTCSeconds() !== n[5]
  )
    return undefined;
  const off = m[8];
  if (!off) return instantOfWall(zone, wall);
  if (off.toUpperCase() === 'Z') return wall;
  const o = /^([+-])(\d{2}):?(\d{2})$/.exec(off)!;
  if (Number(o[2]) > 23 || Number(o[3]) > 59) return undefined;
  return wall - (o[1] === '-' ? -1 : 1) * (Number(o[2]) * 3_600_000 + Number(o[3]) * 60_000);
}

export function parseTime(text: string, now: number, zone = 'UTC', edge: Edge = 'since'): number | undefined {
  const t = text.trim();
  const rel = /^(\d+)([dhm])$/.exec(t);
  if (rel)
    return (
      now -
      Number(rel[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[rel[2] as 'd' | 'h' | 'm'] +
      (edge === 'until' ? 1 : 0)
    );
  const day = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(t);
  if (day && (t.length === 8 || t.length === 10)) {
    const start = startOfDay(zone, `${day[1]}-${day[2]}-${day[3]}`);
    if (start === null) return undefined;
    return edge === 'until' ? startOfNextDay(zone, start) : start;
  }
  const at = dateTime(t, zone);
  return at === undefined ? undefined : at + (edge === 'until' ? 1 : 0);
}

/** What the time arguments accept, for --help. */
export const TIME_HELP = `T is a day (2026-03-01), a date and time (2026-03-01T14:00, with Z or +01:00 to give the offset), or a
  relative 7d / 12h / 30m. Days and times are in your local time zone unless --timezone names another (an IANA name,
  e.g. UTC or Europe/Berlin). --since is the start; --until is inclusive: --until 2026-03-31 includes all of that day.`;

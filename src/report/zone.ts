/**
 * Days in a time zone, for reports: `--since 2026-03-01` means that day's midnight where the user is, `--by day` groups
 * by the user's calendar day (ccusage's convention). IANA zones through Intl, so daylight-saving changes are exact:
 * a day is 23 or 25 hours when the clocks change. UTC is the zone when none is given (the ledger's own `day`).
 */
const DAY_MS = 86_400_000;
const formats = new Map<string, Intl.DateTimeFormat>();

function format(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, f);
  }
  return f;
}

/** The zone this process runs in (TZ, else the system's), as an IANA name. */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The canonical name of an IANA zone (`europe/berlin` -> `Europe/Berlin`), or null when Intl does not know it. */
export function canonicalZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

type Parts = { y: number; mo: number; d: number; h: number; mi: number; s: number };

function parts(zone: string, ms: number): Parts {
  const p: Record<string, number> = {};
  for (const x of format(zone).formatToParts(ms)) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return { y: p.year!, mo: p.month!, d: p.day!, h: p.hour!, mi: p.minute!, s: p.second! };
}

/** The zone's offset from UTC at an instant, in ms (Berlin in winter: +3,600,000). */
export function offsetAt(zone: string, ms: number): number {
  const p = parts(zone, ms);
  const wall = Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s);
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The calendar day (YYYY-MM-DD) of an instant in the zone. */
export function dayIn(zone: string, ms: number): string {
  const p = parts(zone, ms);
  return `${String(p.y).padStart(4, '0')}-${String(p.mo).padStart(2, '0')}-${String(p.d).padStart(2, '0')}`;
}

/** Wall-clock time in the zone, `YYYY-MM-DD HH:MM`. */
export function wallTimeIn(zone: string, ms: number): string {
  const p = parts(zone, ms);
  return `${dayIn(zone, ms)} ${String(p.h).padStart(2, '0')}:${String(p.mi).padStart(2, '0')}`;
}

/** True when the instant is midnight in the zone (a period given as whole days). */
export function isMidnightIn(zone: string, ms: number): boolean {
  const p = parts(zone, ms);
  return p.h === 0 && p.mi === 0 && p.s === 0 && ms % 1000 === 0;
}

/**
 * The first instant of a calendar day in the zone, or null for a date that does not exist (2026-02-30). A midnight
 * the clocks skip (zones that change at 00:00) gives the day's first existing instant.
 */
export function startOfDay(zone: string, day: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const utc = Date.UTC(y, mo - 1, d);
  const check = new Date(utc);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  let t = utc - offsetAt(zone, utc);
  const again = utc - offsetAt(zone, t);
  if (again !== t) t = Math.min(t, again);
  // Skipped midnight: the computed instant lands on the previous day; move to the first instant of this one.
  while (dayIn(zone, t) < day) t += 60_000;
  while (dayIn(zone, t - 60_000) === day) t -= 60_000;
  return t;
}

/** The first instant of the day after the one `ms` falls on, in the zone. */
export function startOfNextDay(zone: string, ms: number): number {
  const day = dayIn(zone, ms);
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
  return startOfDay(zone, next)!;
}

/** A run of time with one offset: from the previous segment's end (or the start of time) until `until` (exclusive). */
export type OffsetSegment = { until: number | null; offset: number };

/**
 * The zone's offsets over [from, to]: one segment per daylight-saving period. Found by stepping a day at a time and
 * bisecting each change to the millisecond; a few years of history cost a few thousand Intl calls.
 */
export function offsetSegments(zone: string, from: number, to: number): OffsetSegment[] {
  const out: OffsetSegment[] = [];
  let cur = offsetAt(zone, from);
  for (let t = from; t < to; ) {
    const next = Math.min(t + DAY_MS, to);
    const o = offsetAt(zone, next);
    if (o !== cur) {
      let lo = t;
      let hi = next;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (offsetAt(zone, mid) === cur) lo = mid;
        else hi = mid;
      }
      out.push({ until: hi, offset: cur });
      cur = o;
    }
    t = next;
  }
  out.push({ until: null, offset: cur });
  return out;
}

/** The instant a wall-clock time (given as if it were UTC) shows in the zone; in a skipped hour, the later reading. */
export function instantOfWall(zone: string, wallAsUtc: number): number {
  const t = wallAsUtc - offsetAt(zone, wallAsUtc);
  return wallAsUtc - offsetAt(zone, t);
}

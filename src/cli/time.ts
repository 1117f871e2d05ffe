/** Time arguments for --since/--until: YYYY-MM-DD (UTC midnight), ISO timestamps, or relative 7d / 12h / 30m. */
export function parseTime(text: string, now: number): number | undefined {
  // A leading dash is no time tiergate means (Date.parse would read '-1' as the year 2001 and '-7' as July 2001).
  if (text.trim().startsWith('-')) return undefined;
  const rel = /^(\d+)([dhm])$/.exec(text.trim());
  if (rel) return now - Number(rel[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[rel[2] as 'd' | 'h' | 'm'];
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return Date.parse(`${text}T00:00:00Z`);
  if (/^\d{8}$/.test(text)) return Date.parse(`${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6)}T00:00:00Z`);
  // Nor is a bare number: Date.parse reads '7' as July 2001 and '2024' as that year; a count needs its unit (7d).
  if (/^\d+$/.test(text.trim())) return undefined;
  const t = Date.parse(text);
  return Number.isFinite(t) ? t : undefined;
}

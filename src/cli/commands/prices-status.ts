/** `tiergate prices status [--json]`: per price source, the cached catalog's age and size, and the last error. */
import { loadRefreshConfig } from '../../refresh/config.js';
import { refreshOverview, type RefreshOverview } from '../../refresh/report.js';
import { parseCommandFlags } from '../args.js';

export const USAGE = `Usage: tiergate prices status [--json]
  Per price source: the cached catalog's age and size, the last error, and when the next refresh is due.`;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandFlags('prices status', USAGE, argv, { json: { type: 'boolean' } });
  if (!parsed) return 2;
  const env = process.env;
  const { config, diagnostics } = loadRefreshConfig(env);
  for (const d of diagnostics) process.stderr.write(`tiergate: ${d}\n`);
  const overview = refreshOverview(env, config);
  process.stdout.write(parsed.values.json ? `${JSON.stringify(overview, null, 2)}\n` : formatOverview(overview));
  return 0;
}

export function formatAge(ms: number): string {
  if (ms < 0) return 'in the future';
  const min = Math.floor(ms / 60_000);
  if (min < 1) return 'just now';
  if (min < 60) return `${min} min ago`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ${min % 60} min ago`;
  return `${Math.floor(h / 24)} days ago`;
}

export function formatOverview(o: RefreshOverview, nowMs = Date.now()): string {
  const out: string[] = [];
  out.push(o.enabled ? `Price refresh: on, every ${o.ttlHours} h` : `Price refresh: OFF (${o.disabledWhy})`);
  if (o.running) out.push(`Running now: pid ${o.running.pid} since ${o.running.since}`);
  if (o.sources.length === 0) out.push('No sources configured (refresh.sources is empty).');
  for (const s of o.sources) {
    out.push('');
    out.push(`${s.name} (${s.format})  ${s.url}`);
    out.push(
      s.fetchedAt
        ? `  catalog   ${s.models} models, fetched ${formatAge(s.ageMs ?? 0)} (${s.fetchedAt}), ${s.catalogVersion}`
        : '  catalog   none yet (the bundled snapshot is used)',
    );
    if (s.lastAttemptAt) out.push(`  last try  ${s.lastAttemptAt}${s.interrupted ? ' (did not finish)' : ''}`);
    if (s.lastError)
      out.push(
        `  error     ${s.lastErrorKind}: ${s.lastError}${s.consecutiveFailures > 1 ? ` (${s.consecutiveFailures} failures in a row)` : ''}`,
      );
    if (o.enabled) {
      const due = s.nextDueAt ? Date.parse(s.nextDueAt) - nowMs : 0;
      out.push(`  next      ${due > 0 ? `in ${Math.ceil(due / 60_000)} min` : 'at the next session start'}`);
    }
  }
  out.push('', `Status file: ${o.statusFile}`);
  return `${out.join('\n')}\n`;
}

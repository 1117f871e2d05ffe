/** `tiergate prices refresh [--wait] [--json]`: start a price refresh now (TTL ignored; the lock still applies). */
import { loadRefreshConfig } from '../../refresh/config.js';
import { runRefresh, type RefreshReport } from '../../refresh/run.js';
import { triggerRefresh, type TriggerResult } from '../../refresh/trigger.js';
import { parseCommandFlags } from '../args.js';

export const USAGE = `Usage: tiergate prices refresh [--wait] [--json]
  Fetch prices now, in the background (the TTL is ignored; the lock still applies).
  --wait  wait for it and print each source's result`;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandFlags('prices refresh', USAGE, argv, {
    wait: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (!parsed) return 2;
  const asJson = parsed.values.json === true;
  const env = process.env;
  if (!parsed.values.wait) {
    const r = triggerRefresh(env, { force: true });
    process.stdout.write(asJson ? `${JSON.stringify(r)}\n` : formatTrigger(r));
    return r.started || r.reason === 'running' ? 0 : 1;
  }
  const { config, diagnostics } = loadRefreshConfig(env);
  for (const d of diagnostics) process.stderr.write(`tiergate: ${d}\n`);
  const report = await runRefresh({ env, config, force: true });
  process.stdout.write(asJson ? `${JSON.stringify(report)}\n` : formatReport(report));
  return report.result === 'done' && report.sources.every((s) => s.result !== 'failed') ? 0 : 1;
}

export function formatTrigger(r: TriggerResult): string {
  if (r.started)
    return `Refreshing prices in the background (pid ${r.pid}): ${r.sources.join(', ')}.\nSee \`tiergate prices status\`.\n`;
  switch (r.reason) {
    case 'running':
      return 'A price refresh is already running. See `tiergate prices status`.\n';
    case 'off':
      return `Price refresh is switched off (${r.detail}).\n`;
    default:
      return `Could not start the price refresh: ${r.detail}\n`;
  }
}

export function formatReport(r: RefreshReport): string {
  if (r.result === 'disabled') return `Price refresh is switched off (${r.why}).\n`;
  if (r.result === 'locked') return 'A price refresh is already running; try again when it is done.\n';
  if (r.sources.length === 0) return 'No price sources configured (refresh.sources is empty).\n';
  const lines = r.sources.map((s) => {
    if (s.result === 'updated')
      return `  ${s.name.padEnd(14)} updated   ${String(s.models).padStart(6)} models  ${s.ms} ms`;
    if (s.result === 'fresh') return `  ${s.name.padEnd(14)} fresh     ${String(s.models ?? '?').padStart(6)} models`;
    if (s.result === 'waiting') return `  ${s.name.padEnd(14)} waiting   (backing off after: ${s.error})`;
    return `  ${s.name.padEnd(14)} FAILED    ${s.error}  (the previous catalog is kept)`;
  });
  return `${lines.join('\n')}\n`;
}

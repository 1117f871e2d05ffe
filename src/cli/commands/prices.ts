/**
 * `tiergate prices show <model…> [--harness h] [--provider p] [--json]`: how each name resolves and what it costs.
 * `tiergate prices list [--family f] [--provider p] [--json]`: the priced models of every catalog layer.
 */
import Table from 'cli-table3';
import { renderTable, wrapText, type Column } from '../../report/terminal-table.js';
import { loadPolicy } from '../../config/load.js';
import { HARNESS_IDS, type Harness } from '../../contracts/harness.js';
import type { PriceRow, Rates, Resolution } from '../../contracts/prices.js';
import { effectiveRates } from '../../prices/cost.js';
import { loadCatalogLayers } from '../../prices/load.js';
import { createPriceLookup } from '../../prices/lookup.js';
import { listPrices, showPrices, type ListedRow } from '../../prices/query.js';
import { HARNESS_OPTIONS } from '../../descriptors/index.js';
import { parseCommandFlags, usageError } from '../args.js';
import { chooseHarness, harnessesKnowing, terminalAsk, type Ask } from '../harness-choice.js';
import { unknownValue } from '../suggest.js';
import { terminal, type Terminal } from '../terminal.js';
import { USAGE as REFRESH_USAGE } from './prices-refresh.js';
import { USAGE as STATUS_USAGE } from './prices-status.js';

/** The policy key `--provider` sets: the one harness option named `<id>Provider` (Claude Code's, descriptors/claude.ts). */
const PROVIDER_KEY = Object.keys(HARNESS_OPTIONS).find((k) => k.endsWith('Provider'));
const PROVIDERS = PROVIDER_KEY ? (HARNESS_OPTIONS[PROVIDER_KEY]!.values as readonly string[]) : [];
const SHOW_USAGE = `Usage: tiergate prices show <model…> [--harness ${HARNESS_IDS.join('|')}] [--provider P] [--json]
  The price tiergate uses for each model, how the name resolved, and its long-context tiers.
  --harness   whose aliases resolve the names (default: the one harness whose tiers or aliases name them; asked on
              a terminal when several or none do)
  --provider  where Claude models run: ${PROVIDERS.join(', ')} (default: the policy's)`;
const LIST_USAGE = `Usage: tiergate prices list [--family TEXT] [--provider MAKER] [--json]
  Every priced model of every catalog layer, USD per 1M tokens. Columns fit the terminal (--width N to choose).`;
const SUBCOMMANDS = ['show', 'list', 'refresh', 'status'];

/** `tiergate prices --help`, or one subcommand's. */
export function usage(argv: string[]): string {
  const byName: Record<string, string> = {
    show: SHOW_USAGE,
    list: LIST_USAGE,
    refresh: REFRESH_USAGE,
    status: STATUS_USAGE,
  };
  const one = argv[0] === undefined ? undefined : byName[argv[0]];
  if (one) return one;
  return `Usage: tiergate prices <show|list|refresh|status> [options]
  show <model…>   the price of each model and how its name resolved
  list            every priced model
  refresh         fetch prices now (--wait to wait for it)
  status          each price source's age, size and last error
Run 'tiergate prices <subcommand> --help' for its options.`;
}

export async function run(argv: string[], ask: Ask | null = terminalAsk()): Promise<number> {
  const [sub, ...rest] = argv;
  // The refresh subcommands live in their own files (src/cli/commands/prices-refresh.ts, prices-status.ts).
  if (sub === 'refresh') return (await import('./prices-refresh.js')).run(rest);
  if (sub === 'status') return (await import('./prices-status.js')).run(rest);
  if (sub !== 'show' && sub !== 'list') {
    return usageError(
      'prices',
      sub ? unknownValue('subcommand', sub, SUBCOMMANDS) : 'name a subcommand: show, list, refresh or status',
    );
  }
  // The shared parser: an unknown flag is a usage error (exit 2), never silently taken as a value-carrying one.
  const parsed = parseCommandFlags(
    `prices ${sub}`,
    usage([sub]),
    rest,
    {
      json: { type: 'boolean' },
      provider: { type: 'string' },
      ...(sub === 'show' ? { harness: { type: 'string' } } : { family: { type: 'string' } }),
    } as const,
    sub === 'show',
  );
  if (!parsed) return 2;
  const flags = parsed.values as { json?: boolean; provider?: string; harness?: string; family?: string };
  const positional = parsed.positionals;
  const { policy } = loadPolicy(process.env, process.cwd());
  const layers = loadCatalogLayers(process.env, policy);
  if (sub === 'show') {
    if (positional.length === 0)
      return usageError('prices show', 'name at least one model, e.g. tiergate prices show sonnet');
    if (flags.provider !== undefined && !PROVIDERS.includes(flags.provider))
      return usageError('prices show', unknownValue('--provider', flags.provider, PROVIDERS));
    const options =
      flags.provider !== undefined && PROVIDER_KEY ? { ...policy, [PROVIDER_KEY]: flags.provider } : policy;
    const lookup = createPriceLookup(layers, options);
    const known = flags.harness === undefined ? harnessesKnowing(positional, policy.tiers, lookup) : [];
    const chosen = await chooseHarness(flags.harness, positional, known, ask);
    if ('error' in chosen) return usageError('prices show', chosen.error);
    const harness = { data: chosen.harness };
    const rows = showPrices(positional, harness.data, lookup);
    process.stdout.write(
      flags.json ? `${JSON.stringify(rows, null, 2)}\n` : formatShow(rows, harness.data, lookup.catalogVersion),
    );
    return rows.every((r) => r.price) ? 0 : 1;
  }
  const rows = listPrices(layers, { family: flags.family, provider: flags.provider });
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(
          rows.map((r) => ({ ...r.row, key: r.key, catalogVersion: r.catalogVersion })),
          null,
          2,
        )}\n`
      : formatList(rows, terminal()),
  );
  return 0;
}

const money = (v: string | null, fallback: string): string => (v === null ? `${fallback}*` : v);

function rateCells(r: Rates): string[] {
  const e = effectiveRates(r);
  return [
    r.input,
    r.output,
    money(r.cacheRead, e.cacheRead),
    money(r.cacheWrite5m, e.cacheWrite5m),
    money(r.cacheWrite1h, e.cacheWrite1h),
  ];
}

function tierText(row: PriceRow): string {
  if (row.longContext.length === 0) return 'none';
  return row.longContext
    .map(
      (t) =>
        `prompt ${t.inclusive ? '>=' : '>'} ${t.threshold.toLocaleString('en-US')}: ` +
        `${t.rates.input} / ${t.rates.output} (${t.rule})`,
    )
    .join('; ');
}

export function formatShow(rows: Resolution[], harness: Harness, catalogVersion: string): string {
  const out: string[] = [];
  for (const r of rows) {
    out.push(`${r.query} (${harness})`);
    if (!r.price) {
      out.push(`  unknown: no price in ${catalogVersion}${r.note ? ` (${r.note})` : ''}`, '');
      continue;
    }
    out.push(`  resolves to  ${r.id} (${r.how})${r.note ? `\n  note         ${r.note}` : ''}`);
    const t = new Table({
      head: ['USD / 1M tokens', 'input', 'output', 'cache read', 'write 5m', 'write 1h'],
      style: { head: [], border: [] },
    });
    t.push(['base', ...rateCells(r.price.rates)]);
    for (const tier of r.price.longContext)
      t.push([`prompt ${tier.inclusive ? '>=' : '>'} ${tier.threshold}`, ...rateCells(tier.rates)]);
    out.push(
      t
        .toString()
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n'),
    );
    if (r.price.longContext.length) out.push(`  long context ${tierText(r.price)}`);
    if (r.price.perRequestFee)
      out.push(`  per request  ${r.price.perRequestFee} USD (comparisons with this model report unknown)`);
    if (r.price.reasoningRate)
      out.push(`  reasoning    ${r.price.reasoningRate} USD / 1M (comparisons with this model report unknown)`);
    out.push(`  window       ${r.price.contextWindow?.toLocaleString('en-US') ?? 'unknown'}`);
    out.push(`  source       ${r.price.source} (catalog ${r.catalogVersion})`, '');
  }
  out.push('* no price in the source: default multiple of input (cache read 0.1x, write 5m 1.25x, write 1h 2x)');
  return `${out.join('\n')}\n`;
}

/** Long-context tiers in a few characters: `>=32k 0.75/3.75; >=128k 1.2/6` (input / output; `prices show` has the rule). */
function tierShort(row: PriceRow): string {
  if (row.longContext.length === 0) return '-';
  const k = (n: number) =>
    n >= 1_000_000 && n % 1_000_000 === 0
      ? `${n / 1_000_000}M`
      : n >= 1000 && n % 1000 === 0
        ? `${n / 1000}k`
        : String(n);
  return row.longContext
    .map((t) => `${t.inclusive ? '>=' : '>'}${k(t.threshold)} ${t.rates.input}/${t.rates.output}`)
    .join('; ');
}

/**
 * The list laid out for the terminal: every rate column from 100 columns on (long names and tiers wrap to fit), and
 * below that model, input, output, cache read, write 5m and the tiers; --json has every field.
 */
export function formatList(rows: ListedRow[], term: Terminal = { width: 120, color: false }): string {
  const right = (head: string): Column => ({ head, align: 'right' });
  const wide = term.width >= 100;
  const widest = term.width >= 150;
  const columns: Column[] = wide
    ? [
        { head: 'model', min: 24 },
        { head: 'provider', min: 8 },
        right('input'),
        right('output'),
        right('cache\nread'),
        right('write\n5m'),
        right('write\n1h'),
        { head: 'long context', min: 12 },
        ...(widest ? [{ head: 'source', min: 12 }] : []),
      ]
    : [
        { head: 'model', min: 20 },
        right('input'),
        right('output'),
        right('cache\nread'),
        right('write\n5m'),
        { head: 'long\ncontext', min: 8 },
      ];
  const cells = rows.map((r) => {
    const [input, output, read, w5m, w1h] = rateCells(r.row.rates);
    return wide
      ? [r.key, r.row.provider, input!, output!, read!, w5m!, w1h!, tierShort(r.row), ...(widest ? [r.row.source] : [])]
      : [r.key, input!, output!, read!, w5m!, tierShort(r.row)];
  });
  // One line per model where it fits: the list is long and row separators would double it.
  const table = renderTable(columns, cells, { width: term.width, color: term.color });
  const notes = [
    `${rows.length} models; USD per 1M tokens; * = default multiple of input; long context: prompt size, input/output rate` +
      ` (tiergate prices show <model> has the rule)${widest ? '' : wide ? '; 150 columns or --json: the source' : '; a wider terminal or --json: provider, write 1h, source'}.`,
  ];
  return `${table}\n${notes.map((n) => `${wrapText(n, term.width, '  ')}\n`).join('')}`;
}

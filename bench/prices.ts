/**
 * `npm run bench:prices`: what pricing costs a hook process. Medians over many runs, each against a baseline measured
 * in the same run (reading the snapshot file without parsing it), so machine speed cancels out of the ratios.
 */
import { readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { loadCatalogLayers, resetBundledCatalogCache } from '../src/prices/load.js';
import { findSnapshotPath } from '../src/prices/snapshot-path.js';
import { createPriceLookup } from '../src/prices/lookup.js';
import { costOf } from '../src/prices/cost.js';
import { CatalogSchema } from '../src/contracts/prices.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const path = findSnapshotPath()!;
const env = { TIERGATE_HOME: '/nonexistent-tiergate-bench' };

function median(fn: () => void, runs = RUNS): number {
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    fn();
    t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)]!;
}

const names = [
  'opus',
  'sonnet',
  'haiku',
  'claude-opus-4.8',
  'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  'gpt-6-astra',
  'gpt-6.1-sol',
  'openai/gpt-5.4',
  'fake/big',
  'anthropic/claude-opus-5-5',
];

// First calls in this process, before any warm-up: what a hook process pays once.
const t0 = performance.now();
const firstLayers = loadCatalogLayers(env, { priceOverrides: {} });
const t1 = performance.now();
const firstLookup = createPriceLookup(firstLayers, { claudeProvider: 'anthropic' });
for (const n of names) firstLookup.resolve(n, 'claude');
const t2 = performance.now();

const baseline = median(() => readFileSync(path, 'utf8'));
const parse = median(() => JSON.parse(readFileSync(path, 'utf8')));
const zod = median(() => CatalogSchema.parse(JSON.parse(readFileSync(path, 'utf8'))), 50);
const coldLoad = median(() => {
  resetBundledCatalogCache();
  loadCatalogLayers(env, { priceOverrides: {} });
});
const layers = loadCatalogLayers(env, { priceOverrides: {} });
const coldResolve = median(() => {
  const l = createPriceLookup(layers, { claudeProvider: 'anthropic' });
  for (const n of names) l.resolve(n, 'claude');
});
const row = layers[0]!.models['claude-haiku-5-5']!;
const usage = {
  input: 60_001,
  output: 1000,
  cacheRead: 40_000,
  cacheWrite5m: 300,
  cacheWrite1h: 0,
  reasoning: 0,
  requests: 1,
};
const cost =
  median(() => {
    for (let i = 0; i < 1000; i++) costOf(usage, row);
  }, 50) / 1000;

const f = (ms: number) => `${ms.toFixed(3)} ms`;
const rows: Array<[string, string, string]> = [
  ['snapshot size', `${(statSync(path).size / 1024).toFixed(1)} KB`, ''],
  ['first loadCatalogLayers in a fresh process (cold JIT, once)', f(t1 - t0), ''],
  [`first lookup + ${names.length} resolutions in a fresh process (once)`, f(t2 - t1), ''],
  ['read file (baseline)', f(baseline), '1.0x'],
  ['read + JSON.parse', f(parse), `${(parse / baseline).toFixed(1)}x`],
  ['read + JSON.parse + full zod (not done at run time)', f(zod), `${(zod / baseline).toFixed(1)}x`],
  ['loadCatalogLayers, cold (no cache dir)', f(coldLoad), `${(coldLoad / baseline).toFixed(1)}x`],
  [
    `new lookup + resolve ${names.length} names (incl. estimate, unknown)`,
    f(coldResolve),
    `${(coldResolve / baseline).toFixed(1)}x`,
  ],
  ['costOf, one record', f(cost), ''],
];
for (const [k, v, r] of rows) process.stdout.write(`${k.padEnd(68)} ${v.padStart(10)} ${r.padStart(7)}\n`);

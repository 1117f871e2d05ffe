// Price refresh costs, medians of N runs with a baseline measured in the same run (ratios, not thresholds).
//  1. SessionStart side: triggerRefresh() when every source is fresh (the common case: reads config + status, stats
//     the catalogs) vs loadPolicy() alone; and when it starts the detached process vs a bare spawnDetached().
//  2. Background side: runRefresh() per source format against a local HTTPS server serving the offline snapshots
//     (OpenRouter 83 KB, LiteLLM 148 KB, models.dev 3.3 MB) vs fetchText() alone on the same document.
//  3. Read side (every hook that prices, once per process): loadCatalogLayers() cold, with the three refreshed
//     catalogs vs the bundled snapshot only.
// Usage: npx tsx bench/refresh.ts [runs=21]      (loopback only; builds nothing)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicy } from '../src/config/load.js';
import { paths } from '../src/io/paths.js';
import { spawnDetached } from '../src/io/processes.js';
import { loadCatalogLayers, resetBundledCatalogCache } from '../src/prices/load.js';
import { fetchText } from '../src/prices/refresh/http.js';
import { runRefresh } from '../src/prices/refresh/run.js';
import type { RefreshConfig, RefreshSource } from '../src/prices/refresh/settings.js';
import { triggerRefresh } from '../src/prices/refresh/trigger.js';
import { PriceServer, json, makeCert } from '../test/unit/refresh/support/server.js';

const runs = Number(process.argv[2] ?? 21);
const root = new URL('..', import.meta.url).pathname;
const data = '/work/shared/data/prices';
const fixture = (p: string) => readFileSync(p, 'utf8');
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const round = (n: number) => +n.toFixed(3);

async function timeIt(n: number, f: () => unknown | Promise<unknown>): Promise<number> {
  const t: number[] = [];
  for (let i = 0; i < n + 2; i++) {
    const s = performance.now();
    await f();
    if (i >= 2) t.push(performance.now() - s);
  }
  return median(t);
}

const tls = makeCert();
const srv = await new PriceServer(tls).start();
const docs: Record<string, { format: RefreshSource['format']; text: string }> = {
  openrouter: { format: 'openrouter', text: JSON.stringify({ data: JSON.parse(fixture(join(root, 'test/fixtures/prices/openrouter-api-models.json'))).data }) },
  litellm: { format: 'litellm', text: fixture(join(data, 'litellm-2026-09.json')) },
  'models.dev': { format: 'models.dev', text: fixture(join(data, 'models-dev-2026-09.json')) },
};
for (const [name, d] of Object.entries(docs)) srv.routes.set(`/${name}`, json(d.text));
const sources: RefreshSource[] = Object.entries(docs).map(([name, d]) => ({ name, url: srv.url(`/${name}`), format: d.format }));
const config: RefreshConfig = { enabled: true, ttlHours: 24, sources };

const home = mkdtempSync(join(tmpdir(), 'tg-bench-refresh-'));
const env = { TIERGATE_HOME: home, HOME: home, PATH: process.env.PATH };
const out: Record<string, unknown> = { runs, node: process.version };

// 2. background job, per source
const job: Record<string, unknown> = {};
for (const s of sources) {
  const fetchOnly = await timeIt(runs, () => fetchText(s.url, { ca: tls.cert }));
  const full = await timeIt(runs, () => runRefresh({ env, config: { ...config, sources: [s] }, force: true, http: { ca: tls.cert } }));
  const cat = readFileSync(join(paths(env).priceCacheDir, `${s.name}.catalog.json`), 'utf8');
  job[s.name] = { docBytes: Buffer.byteLength(docs[s.name]!.text), models: Object.keys(JSON.parse(cat).models).length,
    catalogBytes: Buffer.byteLength(cat), fetchMs: round(fetchOnly), refreshMs: round(full), ratio: round(full / fetchOnly) };
}
out.backgroundJob = job;

// 3. read side: every refreshed catalog present vs none
const policy = loadPolicy(env, null).policy;
// A hook process loads the layers once, cold: the bundled-snapshot cache is reset for both sides.
const withCaches = await timeIt(runs, () => (resetBundledCatalogCache(), loadCatalogLayers(env, policy)));
const empty = { ...env, TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-bench-empty-')) };
const bundledOnly = await timeIt(runs, () => (resetBundledCatalogCache(), loadCatalogLayers(empty, policy)));
out.catalogLoad = { bundledOnlyMs: round(bundledOnly), withRefreshedMs: round(withCaches), ratio: round(withCaches / bundledOnly) };

// 1. SessionStart side. Fresh: every source was just refreshed above.
const n = runs * 10;
const policyOnly = await timeIt(n, () => loadPolicy(env, null));
const fresh = await timeIt(n, () => {
  const r = triggerRefresh(env);
  if (r.started || r.reason !== 'fresh') throw new Error(`expected fresh, got ${JSON.stringify(r)}`);
});
// Spawn path: a do-nothing script stands in for dist/refresh.js, so nothing is fetched; the lock is cleared each time.
const noop = join(home, 'noop.mjs');
writeFileSync(noop, '');
const staleEnv = { ...empty };
const bareSpawn = await timeIt(runs, () => spawnDetached(process.execPath, [noop], staleEnv));
const spawnPath = await timeIt(runs, () => {
  const r = triggerRefresh(staleEnv, { script: noop, config });
  if (!r.started) throw new Error(`expected a start, got ${JSON.stringify(r)}`);
  rmSync(paths(staleEnv).refreshLock, { force: true });
});
out.trigger = {
  loadPolicyMs: round(policyOnly), freshMs: round(fresh), freshRatio: round(fresh / policyOnly),
  bareSpawnMs: round(bareSpawn), startMs: round(spawnPath), startRatio: round(spawnPath / bareSpawn),
};

console.log(JSON.stringify(out, null, 2));
await srv.stop();
rmSync(home, { recursive: true, force: true });
rmSync(empty.TIERGATE_HOME, { recursive: true, force: true });

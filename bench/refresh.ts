// Price refresh costs, medians of N runs with a baseline measured in the same run (ratios, not thresholds).
//  1. SessionStart side: triggerRefresh() when every source is fresh (the common case: reads config + status, stats
//     the catalogs) vs loadPolicy() alone; and when it starts the detached process vs a bare spawnDetached().
//  2. Background side: runRefresh() per source format against a local HTTPS server serving the offline snapshots
//     (OpenRouter 83 KB, LiteLLM 148 KB, models.dev 3.3 MB) vs fetchText() alone on the same document.
//  4. The SessionStart hook process as a whole: refresh off vs fresh vs due (see the end of the file).
//  3. Read side (every hook that prices, once per process): loadCatalogLayers() cold, with the three refreshed
//     catalogs vs the bundled snapshot only.
// Usage: npm run build && npx tsx bench/refresh.ts [runs=21]      (loopback only)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicy } from '../src/config/load.js';
import { paths } from '../src/io/paths.js';
import { spawnDetached } from '../src/io/processes.js';
import { loadCatalogLayers, resetBundledCatalogCache } from '../src/prices/load.js';
import { fetchText } from '../src/refresh/http.js';
import { runRefresh } from '../src/refresh/run.js';
import type { RefreshConfig, RefreshSource } from '../src/refresh/settings.js';
import { triggerRefresh } from '../src/refresh/trigger.js';
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
  openrouter: {
    format: 'openrouter',
    text: JSON.stringify({
      data: JSON.parse(fixture(join(root, 'test/fixtures/prices/openrouter-api-models.json'))).data,
    }),
  },
  litellm: { format: 'litellm', text: fixture(join(data, 'litellm-2026-09.json')) },
  'models.dev': { format: 'models.dev', text: fixture(join(data, 'models-dev-2026-09.json')) },
};
for (const [name, d] of Object.entries(docs)) srv.routes.set(`/${name}`, json(d.text));
const sources: RefreshSource[] = Object.entries(docs).map(([name, d]) => ({
  name,
  url: srv.url(`/${name}`),
  format: d.format,
}));
const config: RefreshConfig = { enabled: true, ttlHours: 24, sources };

const home = mkdtempSync(join(tmpdir(), 'tg-bench-refresh-'));
const env = { TIERGATE_HOME: home, HOME: home, PATH: process.env.PATH };
const out: Record<string, unknown> = { runs, node: process.version };

// 2. background job, per source
const job: Record<string, unknown> = {};
for (const s of sources) {
  const fetchOnly = await timeIt(runs, () => fetchText(s.url, { ca: tls.cert }));
  const full = await timeIt(runs, () =>
    runRefresh({ env, config: { ...config, sources: [s] }, force: true, http: { ca: tls.cert } }),
  );
  const cat = readFileSync(join(paths(env).priceCacheDir, `${s.name}.catalog.json`), 'utf8');
  job[s.name] = {
    docBytes: Buffer.byteLength(docs[s.name]!.text),
    models: Object.keys(JSON.parse(cat).models).length,
    catalogBytes: Buffer.byteLength(cat),
    fetchMs: round(fetchOnly),
    refreshMs: round(full),
    ratio: round(full / fetchOnly),
  };
}
out.backgroundJob = job;

// 3. read side: every refreshed catalog present vs none
const policy = loadPolicy(env, null).policy;
// A hook process loads the layers once, cold: the bundled-snapshot cache is reset for both sides.
const withCaches = await timeIt(runs, () => (resetBundledCatalogCache(), loadCatalogLayers(env, policy)));
const empty = { ...env, TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-bench-empty-')) };
const bundledOnly = await timeIt(runs, () => (resetBundledCatalogCache(), loadCatalogLayers(empty, policy)));
out.catalogLoad = {
  bundledOnlyMs: round(bundledOnly),
  withRefreshedMs: round(withCaches),
  ratio: round(withCaches / bundledOnly),
};

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
  loadPolicyMs: round(policyOnly),
  freshMs: round(fresh),
  freshRatio: round(fresh / policyOnly),
  bareSpawnMs: round(bareSpawn),
  startMs: round(spawnPath),
  startRatio: round(spawnPath / bareSpawn),
};

// 4. The whole SessionStart hook process (`node dist/hook.cjs codex SessionStart`), interleaved: refresh off, on but
//    fresh, and on and due (it starts the detached refresh; the source is a closed loopback port so the child fails
//    fast, and status + lock are reset before each due run).
const hookJs = join(root, 'dist/hook.cjs');
const { _meta, ...ssPayload } = JSON.parse(
  readFileSync(join(root, 'test/fixtures/codex/SessionStart.basic.json'), 'utf8'),
);
const hookHome = mkdtempSync(join(tmpdir(), 'tg-bench-hook-'));
const hookEnv = { PATH: process.env.PATH, HOME: hookHome, TIERGATE_HOME: hookHome };
mkdirSync(join(hookHome, 'config'), { recursive: true });
mkdirSync(paths(hookEnv).priceCacheDir, { recursive: true });
writeFileSync(
  paths(hookEnv).config,
  JSON.stringify({
    refresh: { sources: [{ name: 'closed', url: 'https://127.0.0.1:9/models', format: 'openrouter' }] },
  }),
);
const input = JSON.stringify({ ...ssPayload, cwd: hookHome });
const cases: Record<string, () => Record<string, string | undefined>> = {
  'refresh off': () => ({ ...hookEnv, TIERGATE_PRICE_REFRESH: 'off' }),
  'refresh on, fresh': () => {
    writeFileSync(
      paths(hookEnv).refreshStatus,
      JSON.stringify({
        format: 'tiergate-refresh-status/1',
        updatedAt: new Date().toISOString(),
        sources: {
          closed: {
            name: 'closed',
            url: '',
            format: 'openrouter',
            lastAttemptAt: new Date().toISOString(),
            pendingSince: null,
            lastSuccessAt: null,
            lastError: 'x',
            lastErrorKind: 'network',
            consecutiveFailures: 1,
            models: null,
            skippedRows: null,
            bytes: null,
            durationMs: null,
            catalogFile: null,
            catalogVersion: null,
          },
        },
      }),
    );
    return hookEnv;
  },
  'refresh on, due (spawns)': () => {
    rmSync(paths(hookEnv).refreshStatus, { force: true });
    rmSync(paths(hookEnv).refreshLock, { force: true });
    return hookEnv;
  },
};
const hookTimes: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < runs + 2; i++) {
  for (const [name, prep] of Object.entries(cases)) {
    const e = prep();
    const t = performance.now();
    const r = spawnSync(process.execPath, [hookJs, 'codex', 'SessionStart'], { input, env: e, encoding: 'utf8' });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`${name}: exit ${r.status} ${r.stderr}`);
    if (i >= 2) hookTimes[name]!.push(ms);
  }
}
const offMs = median(hookTimes['refresh off']!);
out.sessionStartHook = Object.fromEntries(
  Object.entries(hookTimes).map(([k, t]) => [k, { medianMs: round(median(t)), ratio: round(median(t) / offMs) }]),
);
rmSync(hookHome, { recursive: true, force: true });

console.log(JSON.stringify(out, null, 2));
await srv.stop();
rmSync(home, { recursive: true, force: true });
rmSync(empty.TIERGATE_HOME, { recursive: true, force: true });

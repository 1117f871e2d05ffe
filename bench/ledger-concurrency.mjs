// Ledger under concurrency: BENCH_PROCS (64) processes start at once, each records BENCH_PER_PROC (50) Codex
// completions through the real command path (runHook -> SubagentStop handler -> child rollout tail, a fixture recorded
// on codex-cli 0.169.0 -> appendSpool) and drains the spool into the SQLite ledger every BENCH_DRAIN_EVERY (10)
// completions, so writers and drainers race on the spool and on the ledger. A final drain, then every expected
// dedupe key is looked up (the ledger keys a Codex completion by `codex:agent:<agent_id>:turn:<turn_id>`, src/observer/ledger/store.ts): rows lost must be 0, duplicates 0, integrity_check ok.
// Usage: node bench/ledger-concurrency.mjs   (builds its workers with esbuild into .cache/bench). Prints one JSON line.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const PROCS = Number(process.env.BENCH_PROCS ?? 64);
const PER = Number(process.env.BENCH_PER_PROC ?? 50);
const DRAIN_EVERY = Number(process.env.BENCH_DRAIN_EVERY ?? 10);
const TURN = '01a23714-843d-7422-bed5-1f5810b9672e'; // the child turn in the rollout fixture

const out = join(root, '.cache/bench');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: {
    'ledger-writer': join(root, 'bench/workers/ledger-writer.ts'),
    'ledger-count': join(root, 'bench/workers/ledger-count.ts'),
  },
  outdir: out,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  mainFields: ['module', 'main'],
  external: ['better-sqlite3', 'bun:sqlite'],
  logLevel: 'warning',
  banner: { js: "import { createRequire as __c } from 'node:module'; const require = __c(import.meta.url);" },
});
// The bundle finds data/prices-snapshot.json by walking up from itself: .cache/bench -> root.

const home = mkdtempSync(join(tmpdir(), 'tg-bench-ledger-'));
const rollout = join(home, 'child-rollout.jsonl');
copyFileSync(join(root, 'test/fixtures/codex/rollouts/child-cheaper.child.at-SubagentStop.jsonl'), rollout);
const env = { PATH: process.env.PATH, HOME: home, TIERGATE_HOME: join(home, 'tg') };

function node(script, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(out, script), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let so = '';
    let se = '';
    p.stdout.on('data', (d) => (so += d));
    p.stderr.on('data', (d) => (se += d));
    p.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(so.trim().split('\n').pop()))
        : reject(new Error(`${script} exit ${code}: ${se.slice(-500)}`)),
    );
  });
}

const load = [loadavg()[0]];
const t0 = performance.now();
const lanes = await Promise.all(
  Array.from({ length: PROCS }, (_, lane) =>
    node('ledger-writer.mjs', [String(lane), String(PER), String(DRAIN_EVERY), rollout, TURN]),
  ),
);
const writeMs = performance.now() - t0;
const final = await node('ledger-count.mjs', []);
const totalMs = performance.now() - t0;
load.push(loadavg()[0]);

const expected = new Set();
for (let lane = 0; lane < PROCS; lane++)
  for (let i = 0; i < PER; i++) expected.add(`codex:agent:bench-agent-${lane}-${i}:turn:${TURN}`);
const got = new Set(final.keys);
const lost = [...expected].filter((k) => !got.has(k)).length;
const duplicates = final.keys.length - got.size;
const recorded = lanes.reduce((s, l) => s + l.recorded, 0);
const drains = lanes.reduce((s, l) => s + l.drains, 0);
const drainErrors = lanes.reduce((s, l) => s + l.drainErrors, 0);
const sorted = lanes.map((l) => l.ms).sort((a, b) => a - b);
console.log(
  JSON.stringify({
    bench: 'ledger-concurrency',
    procs: PROCS,
    perProc: PER,
    drainEvery: DRAIN_EVERY,
    expected: expected.size,
    recordedByHooks: recorded,
    rows: final.keys.length,
    rowsLost: lost,
    duplicates,
    withUsage: final.ok,
    drainsDuringRun: drains,
    drainErrors,
    leftForFinalDrain: final.finalDrain?.completions ?? null,
    integrity: final.integrity,
    wallSeconds: +(totalMs / 1000).toFixed(1),
    completionsPerSecond: +(expected.size / (totalMs / 1000)).toFixed(0),
    laneMs: { median: sorted[sorted.length >> 1], max: sorted.at(-1) },
    writePhaseSeconds: +(writeMs / 1000).toFixed(1),
    loadavg1m: load.map((l) => +l.toFixed(2)),
    pass: lost === 0 && duplicates === 0 && final.integrity === 'ok',
  }),
);
// A failed run keeps its data dir (diagnostics.log says what each failing hook hit).
if (lost || duplicates) {
  process.exitCode = 1;
  console.error(`kept for inspection: ${home}`);
} else rmSync(home, { recursive: true, force: true });

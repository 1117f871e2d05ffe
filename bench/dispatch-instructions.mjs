// Instructions a dispatch hook runs, under valgrind's callgrind: load-independent where wall time on a shared machine is
// not (bench/README.md, issue 17). Sets up the cases of bench/dispatch-hook.mjs (BENCH_CASES_OUT), runs each once to
// write the data dir's files, then counts each N times (median, millions) against a bare `node -e 0`, less V8's random
// prime search at start-up.
// Usage: node bench/dispatch-instructions.mjs [runs=3] [case-substring ...]   (needs valgrind; npm run build first)
// BENCH_FIXED_SEEDS=1: every process (bare included) runs with V8's hash and random seeds fixed and without address
// randomisation (`setarch -R`), so two runs of one case agree to ~0.01 M instead of ~0.3-0.5 M (hash tables rehashed,
// the prime search: helpers' finding, bench/README.md session 17). The level moves (bare ~+6.7 M, a hook less), so
// compare `overBareM` (a hook's instructions less bare's) of two builds each measured this way, never the ratio, and
// never with a run without it. Each case's warm-up run makes its code cache under the same flags (they name the cache).
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quantile as q } from './stats.mjs';

const root = new URL('..', import.meta.url).pathname;
const runs = Number(process.argv[2] ?? 3);
const only = process.argv.slice(3);
const tmp = mkdtempSync(join(tmpdir(), 'tg-bench-instr-'));
const listing = join(tmp, 'cases.json');
execFileSync(process.execPath, [join(root, 'bench/dispatch-hook.mjs')], {
  env: { ...process.env, BENCH_CASES_OUT: listing },
  stdio: 'inherit',
});
const { home, cases } = JSON.parse(readFileSync(listing, 'utf8'));
const chosen = cases.filter((c, i) => i === 0 || only.length === 0 || only.some((s) => c.name.includes(s)));

const FIXED = process.env.BENCH_FIXED_SEEDS === '1' ? ['--hash-seed=1', '--random-seed=1'] : [];
function run(c, argv0, extra = []) {
  const fd = c.file ? openSync(c.file, 'r') : null;
  try {
    const [bin, args] = FIXED.length && argv0 === 'valgrind' ? ['setarch', ['-R', argv0]] : [argv0, []];
    return spawnSync(bin, [...args, ...extra, ...FIXED, ...c.args], {
      env: c.env,
      encoding: 'utf8',
      ...(fd === null ? { input: c.input } : { stdio: [fd, 'pipe', 'pipe'] }),
    });
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
const counts = {};
for (const c of chosen) {
  run(c, process.execPath); // writes the effective file and Node 22's compile cache, as a dispatch in use finds them
  counts[c.name] = [];
  for (let i = 0; i < runs; i++) {
    const out = join(tmp, 'callgrind.out');
    const r = run(c, 'valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, process.execPath]);
    if (r.status !== 0) throw new Error(`${c.name}: valgrind exited ${r.status}: ${r.stderr.slice(-400)}`);
    // V8 (Node 20.20) looks for primes when it seeds its hash tables: 5-12 M instructions a process, at random. Left
    // out, so two runs of one case agree within ~0.3 M.
    const annotated = execFileSync('callgrind_annotate', [out], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const count = (re) => Number((re.exec(annotated)?.[1] ?? '0').replaceAll(',', ''));
    const total = count(/^\s*([\d,]+)\s.*PROGRAM TOTALS/m);
    if (!total) throw new Error(`${c.name}: no total from callgrind_annotate`);
    counts[c.name].push((total - count(/^\s*([\d,]+)\s.*detail::sprp/m)) / 1e6);
  }
}
const bare = q(counts[chosen[0].name], 0.5);
const results = Object.fromEntries(
  Object.entries(counts).map(([n, v]) => [
    n,
    { mInstr: +q(v, 0.5).toFixed(1), overBareM: +(q(v, 0.5) - bare).toFixed(2), ratio: +(q(v, 0.5) / bare).toFixed(3) },
  ]),
);
console.log(
  JSON.stringify(
    { bench: 'dispatch-instructions', node: process.version, runs, fixedSeeds: FIXED.length > 0, results },
    null,
    1,
  ),
);
rmSync(tmp, { recursive: true, force: true });
rmSync(home, { recursive: true, force: true });

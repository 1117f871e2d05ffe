// `tiergate demo` end to end (the README's first command): the built CLI process, median of N runs, against
// `tiergate help` in the same run as the baseline (node start-up + CLI load). Target: median < 3 s. Run `npm run build` first.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { median, root } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const cli = join(root, 'dist', 'cli.js');

function timeCli(args) {
  const out = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, [cli, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    if (r.status !== 0) throw new Error(`tiergate ${args.join(' ')} failed: ${r.stderr}`);
    if (i > 0) out.push(performance.now() - t); // first run warms the file cache
  }
  return median(out);
}

const help = timeCli(['help']);
const demo = timeCli(['demo', '--json']);
console.log(`tiergate help (baseline): ${help.toFixed(0)} ms median of ${RUNS}`);
console.log(
  `tiergate demo --json:     ${demo.toFixed(0)} ms median of ${RUNS} (${(demo / help).toFixed(2)}x baseline, target < 3000 ms)`,
);

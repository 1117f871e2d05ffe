#!/usr/bin/env node
// `npm run bench`: runs every benchmark script in bench/ one after another (never in parallel: they time things), in
// its own process, and collects what each printed into bench/results/summary.json. Each script keeps its own output
// format: a JSON object (one line or pretty-printed) is stored as `json`; text output keeps its result lines
// (medians, ratios, targets) as `headline`. Load average is recorded before and after each one, because on a shared
// machine a ratio measured under load is only comparable within its own run.
//
//   node bench/run.mjs                     # everything present (the slow ones take minutes: see bench/README.md)
//   node bench/run.mjs --quick             # smaller sizes and fewer runs, for a smoke check
//   node bench/run.mjs --only dispatch-hook,ledger-concurrency
//   node bench/run.mjs --skip scan-vs-ccusage,claude-module
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? (args[i + 1] ?? '').split(',').filter(Boolean) : null;
};
const quick = args.includes('--quick');
const only = flag('--only');
const skip = flag('--skip') ?? [];
const tsx = join(root, 'node_modules/.bin/tsx');

/**
 * The benchmarks, cheapest first. `quick` is what --quick passes instead (env and args); `timeoutMin` bounds one
 * script so a hung benchmark cannot hang the whole run.
 */
const BENCHES = [
  {
    name: 'dispatch-hook',
    file: 'dispatch-hook.mjs',
    args: ['61'],
    quick: { args: ['7'], env: { BENCH_RSS_RUNS: '2' } },
    timeoutMin: 20,
    what: 'node dist/hook.cjs claude|codex PreToolUse vs bare node -e 0 (target <= 1.25x), peak RSS',
  },
  {
    name: 'vm-code-cache',
    file: 'vm-code-cache.mjs',
    args: ['31'],
    quick: { args: ['5'] },
    timeoutMin: 10,
    what: 'the Codex dispatch bundle loaded through vm.Script cachedData vs dist/hook.cjs and bare node -e 0',
  },
  {
    name: 'statusline',
    file: 'statusline.mjs',
    args: ['31'],
    quick: { args: ['5'] },
    timeoutMin: 10,
    what: 'node dist/statusline.cjs (a used data dir, 200 spool files) vs bare node -e 0 and the dispatch hook',
  },
  {
    name: 'codex-hook',
    file: 'codex-hook.mjs',
    args: ['21'],
    quick: { args: ['5'] },
    timeoutMin: 15,
    what: "Codex command hook vs node -e 0 (the Codex engineer's own bench)",
  },
  {
    name: 'in-process-decision',
    file: 'in-process-decision.mjs',
    args: [],
    quick: { args: ['2000'] },
    timeoutMin: 10,
    what: 'OpenCode/pi in-process decision p50/p99 over 10,000 calls (target p99 <= 1 ms)',
  },
  {
    name: 'prices',
    file: 'prices.ts',
    tsx: true,
    args: [],
    quick: { env: { BENCH_RUNS: '40' } },
    timeoutMin: 10,
    what: 'price catalog load / resolve / cost costs per hook process',
  },
  {
    name: 'refresh',
    file: 'refresh.ts',
    tsx: true,
    args: ['21'],
    quick: { args: ['5'] },
    timeoutMin: 15,
    what: 'price refresh: trigger, background job and read-side costs',
  },
  {
    name: 'ledger-concurrency',
    file: 'ledger-concurrency.mjs',
    args: [],
    quick: { env: { BENCH_PROCS: '16', BENCH_PER_PROC: '20' } },
    timeoutMin: 20,
    what: '64 concurrent hook processes x 50 completions: throughput, rows lost (must be 0)',
  },
  {
    name: 'tail-read',
    file: 'tail-read.mjs',
    args: [],
    quick: { env: { BENCH_RUNS: '50' } },
    timeoutMin: 20,
    what: 'transcript tail read, 1 MiB vs 1 GiB file (target ratio <= 1.1)',
  },
  {
    name: 'report',
    file: 'report.mjs',
    args: [],
    quick: { env: { BENCH_ROWS: '100000' } },
    timeoutMin: 30,
    what: 'tiergate report over 1,000,000 completion rows (target <= 1 s)',
  },
  {
    name: 'ledger-migrate',
    file: 'ledger-migrate.mjs',
    args: ['3'],
    quick: { env: { BENCH_ROWS: '100000' } },
    timeoutMin: 15,
    what: 'ledger migration 4 (per-turn rows) on a schema-3 ledger of 1,000,000 completions: one-time cost',
  },
  {
    name: 'claude-module',
    file: 'claude-module.mjs',
    args: ['--json'],
    quick: { env: { BENCH_RUNS: '3' } },
    timeoutMin: 30,
    what: 'Claude Code dispatch -> child latency, hooks module vs no plugin (real binary; target <= 1.05x)',
  },
  {
    name: 'team',
    file: 'team.mjs',
    args: [],
    quick: { env: { BENCH_PUSH_ROWS: '100000', BENCH_TEAM_ROWS: '1000000' } },
    timeoutMin: 90,
    what: 'team ledger in PostgreSQL: push of 1,000,000 completions (target <= 30 s), report --team over 10,000,000 rows (target <= 2 s per grouping)',
  },
  {
    name: 'scan-vs-ccusage',
    file: 'scan-vs-ccusage.mjs',
    args: [],
    quick: { env: { BENCH_CORPUS_GB: '0.2', BENCH_RUNS: '1' } },
    timeoutMin: 90,
    what: 'tiergate scan vs ccusage on a generated >= 2 GB corpus: time ratio and totals agreement',
  },
];

/** The last JSON object a script printed: the whole output, else the last line that parses, else the last `{` block. */
export function lastJson(stdout) {
  const text = stdout.trim();
  try {
    return JSON.parse(text);
  } catch {
    /* mixed output */
  }
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i].trim();
    if (!l.startsWith('{')) continue;
    try {
      return JSON.parse(l);
    } catch {
      /* a pretty-printed object's first line: try the block below */
    }
    try {
      return JSON.parse(lines.slice(i).join('\n'));
    } catch {
      /* not JSON */
    }
  }
  return null;
}

const HEADLINE = /ratio|target|PASS|FAIL|met\b|MISSED|AGREE|DIFFER|median|p50|p99|rows lost|throughput/i;

function run(b) {
  const file = join(root, 'bench', b.file);
  const argv = quick && b.quick?.args ? b.quick.args : b.args;
  const env = { ...process.env, ...(quick ? b.quick?.env : {}) };
  const [cmd, cmdArgs] = b.tsx ? [tsx, [file, ...argv]] : [process.execPath, [file, ...argv]];
  return new Promise((resolve) => {
    const started = performance.now();
    const load0 = loadavg()[0];
    const child = spawn(cmd, cmdArgs, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.length > 4_000_000) stdout = stdout.slice(-2_000_000);
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), b.timeoutMin * 60_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = +((performance.now() - started) / 1000).toFixed(1);
      const json = lastJson(stdout);
      const lines = stdout.split('\n').filter((l) => l.trim());
      resolve({
        name: b.name,
        what: b.what,
        status: code === 0 ? 'ok' : signal ? `killed (${signal}, timeout ${b.timeoutMin} min)` : `exit ${code}`,
        seconds,
        loadavg1m: { before: +load0.toFixed(2), after: +loadavg()[0].toFixed(2) },
        json,
        headline: lines.filter((l) => HEADLINE.test(l) && !l.trim().startsWith('"')).slice(-15),
        stderrTail: code === 0 ? undefined : stderr.split('\n').filter(Boolean).slice(-10),
      });
    });
  });
}

const selected = BENCHES.filter((b) => (!only || only.includes(b.name)) && !skip.includes(b.name));
const results = [];
const startedAt = new Date().toISOString();
for (const b of selected) {
  if (!existsSync(join(root, 'bench', b.file))) {
    results.push({ name: b.name, what: b.what, status: 'missing', seconds: 0 });
    console.log(`-- ${b.name}: bench/${b.file} not present, skipped`);
    continue;
  }
  console.log(`-- ${b.name}: ${b.what}${quick ? ' [quick]' : ''}`);
  const r = await run(b);
  results.push(r);
  console.log(`   ${r.status} in ${r.seconds} s (load ${r.loadavg1m.before} -> ${r.loadavg1m.after})`);
  for (const l of r.headline) console.log(`   ${l.trim()}`);
  if (r.json && !r.headline.length) console.log(`   ${JSON.stringify(r.json).slice(0, 600)}`);
  if (r.stderrTail) for (const l of r.stderrTail) console.log(`   ! ${l}`);
}

const summary = {
  startedAt,
  finishedAt: new Date().toISOString(),
  quick,
  node: process.version,
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memGiB: +(totalmem() / 2 ** 30).toFixed(1) },
  results,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
const out = join(root, 'bench/results', quick ? 'summary.quick.json' : 'summary.json');
writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
console.log(`\nwrote ${out}`);
const failed = results.filter((r) => r.status !== 'ok' && r.status !== 'missing');
process.exitCode = failed.length ? 1 : 0;

// The lever for the dispatch hook's last milliseconds, as session 12 measured it before it shipped (session 13:
// src/hook-runner/loader.ts, so "hook.cjs (today)" below now has it too and the two cases should agree): V8's code
// cache through `vm.Script` `cachedData` on every Node (Node 22+'s `module.enableCompileCache`, which the hook used
// until then, keeps the bundle's top level only; Node 20 has nothing). A small loader compiles the Codex dispatch bundle wrapped as Node's
// own loader does (`Module.wrap`), with the cache made by `createCachedData()` AFTER a dispatch ran, so the functions a
// dispatch compiles lazily are in it. Interleaved against bare `node -e 0` and `node dist/hook.cjs codex PreToolUse` on
// the same over-ceiling payload; every answer is checked to be the same denial. The prototype reads/writes its cache
// in a temp dir with plain fs calls: the product version must go through src/io/files.ts (0600, no links, atomic),
// key the file by the bundle's size+mtime+Node version (V8's own check hashes the source's length only) and fail open.
// BENCH_BASE_DIST=<another build's dist/>: that build's hook.cjs is one more case, with a data dir of its own (an A/B
// of a change on a loaded machine, where the ratio to a bare start is noise but both builds meet the same load).
// Usage: node bench/vm-code-cache.mjs [runs=31]   (npm run build first). Prints one JSON line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleavedProcessTimes, root } from './lib.mjs';

const runs = Number(process.argv[2] ?? 31);
const dir = mkdtempSync(join(tmpdir(), 'tg-bench-vmcache-'));
const { _meta, ...payload } = JSON.parse(readFileSync(join(root, 'test/fixtures/codex/PreToolUse.basic.json'), 'utf8'));
const input = JSON.stringify({ ...payload, cwd: dir, model: 'gpt-6-luna' });
const bundle = join(root, 'dist/hook-dispatch-codex.cjs');
const loader = join(dir, 'vm-loader.cjs');
writeFileSync(
  loader,
  `const vm = require('node:vm'), fs = require('node:fs'), Module = require('node:module');
const file = ${JSON.stringify(bundle)}, cachePath = ${JSON.stringify(join(dir, 'codex.'))} + process.version + '.v8';
let cached; try { cached = fs.readFileSync(cachePath); } catch {}
const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), { filename: file, cachedData: cached });
const m = { exports: {} };
script.runInThisContext().call(m.exports, m.exports, Module.createRequire(file), m, file, ${JSON.stringify(join(root, 'dist'))});
const exit = process.exit;
m.exports.main(['codex', 'PreToolUse']).then((code) => {
  if (!cached || script.cachedDataRejected) fs.writeFileSync(cachePath, script.createCachedData());
  exit(code);
});
`,
);
const env = { PATH: process.env.PATH, HOME: dir, TIERGATE_HOME: join(dir, 'tg') };
const denies = (r) => r.stdout.includes('"permissionDecision":"deny"');
const cases = {
  'bare node -e 0': { args: ['-e', '0'] },
  'bare node -e 0, again (noise floor)': { args: ['-e', '0'] },
  'hook.cjs (today)': { args: [join(root, 'dist/hook.cjs'), 'codex', 'PreToolUse'], input, check: denies },
  'vm.Script + cachedData': { args: [loader], input, check: denies },
};
if (process.env.BENCH_BASE_DIST)
  cases['hook.cjs (BENCH_BASE_DIST)'] = {
    args: [join(process.env.BENCH_BASE_DIST, 'hook.cjs'), 'codex', 'PreToolUse'],
    input,
    check: denies,
    env: { TIERGATE_HOME: join(dir, 'tg-base') },
  };
const load = [loadavg()[0]];
const results = interleavedProcessTimes(cases, runs, env);
load.push(loadavg()[0]);
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ bench: 'vm-code-cache', runs, node: process.version, loadavg1m: load, results }));

#!/usr/bin/env node
// Dispatch -> child latency in the real Claude Code binary: tiergate's plugin (hooks module live) vs no plugin, in the
// same run, interleaved, against the project's fake Anthropic API on 127.0.0.1. Measured at the API: from the end of
// the parent's reply carrying the Agent tool_use to the arrival of the child's first request.
// Also reported: the command-hook fallback (module made to fail at load), for scale.
//
//   node bench/claude-module.mjs            # BENCH_RUNS=7 per variant by default
//   BENCH_RUNS=15 node bench/claude-module.mjs --json
import { join } from 'node:path';
import { mkdirSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';

const root = new URL('..', import.meta.url).pathname;
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 7));
const asJson = process.argv.includes('--json');

const { harnessBin } = await tsImport('../test/e2e/support/harness-bin.ts', import.meta.url);
const api = await tsImport('../test/e2e/support/fake-anthropic-api.ts', import.meta.url);
const cr = await tsImport('../test/e2e/support/claude-run.ts', import.meta.url);

const bin = harnessBin('claude');
if (!bin.ok) {
  console.error(`claude unavailable: ${bin.reason}`);
  process.exit(2);
}

const input = {
  description: 'bench child',
  prompt: `${api.CHILD_MARKER}: report.`,
  subagent_type: 'general-purpose',
  model: 'sonnet',
  run_in_background: false,
};
const server = await api.startFakeAnthropic(api.dispatchScript(input));

function pluginCopy(breakModule, moduleOnly = false) {
  const dir = join(cr.makeSandbox('tg-bench-plugin-').root, 'tiergate');
  mkdirSync(join(dir, 'dist'), { recursive: true });
  cpSync(join(root, '.claude-plugin'), join(dir, '.claude-plugin'), { recursive: true });
  cpSync(join(root, 'hooks.json'), join(dir, 'hooks.json'));
  cpSync(join(root, 'data'), join(dir, 'data'), { recursive: true });
  // All of dist/, as the plugin ships it: the hook loader picks among several bundles.
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
  if (moduleOnly) {
    // The module alone: no command hook on the dispatch path (what the guarded fallback costs, by difference).
    const hooks = JSON.parse(readFileSync(join(dir, 'hooks.json'), 'utf8'));
    delete hooks.hooks.PreToolUse;
    delete hooks.hooks.SubagentStop;
    writeFileSync(join(dir, 'hooks.json'), JSON.stringify(hooks));
  }
  if (breakModule)
    writeFileSync(
      join(dir, 'dist', 'claude-module.js'),
      'throw new Error("bench: no module");\nexport function register(on) {}\n',
    );
  return dir;
}

/** A plugin holding one PreToolUse command hook that does nothing (`true`): what Claude Code charges for any such hook. */
function trivialHookPlugin() {
  const dir = join(cr.makeSandbox('tg-bench-trivial-').root, 'trivial');
  mkdirSync(join(dir, '.claude-plugin'), { recursive: true });
  mkdirSync(join(dir, 'hooks'), { recursive: true });
  writeFileSync(join(dir, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'trivial', version: '0.0.1' }));
  const hook = { matcher: 'Agent|Task', hooks: [{ type: 'command', command: 'true', timeout: 10 }] };
  writeFileSync(join(dir, 'hooks', 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: [hook] } }));
  return dir;
}

const variants = {
  'no plugin': [],
  'a do-nothing PreToolUse command hook': ['--plugin-dir', trivialHookPlugin()],
  'tiergate (module)': ['--plugin-dir', pluginCopy(false)],
  'tiergate (module, no command fallback)': ['--plugin-dir', pluginCopy(false, true)],
  'tiergate (command-hook fallback)': ['--plugin-dir', pluginCopy(true)],
};

const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let i = 0; i < runs; i += 1) {
  for (const [name, extra] of Object.entries(variants)) {
    server.requests.length = 0;
    const sb = cr.makeSandbox('tg-bench-');
    const res = await cr.runClaude(bin.bin, sb, server.url, [
      '-p',
      'TG-PARENT: delegate.',
      '--output-format',
      'json',
      '--allowedTools',
      'Agent',
      ...extra,
    ]);
    const dispatch = server.requests.find((r) => r.role === 'parent-dispatch');
    const child = server.requests.find((r) => r.role === 'child');
    if (res.code !== 0 || !dispatch || !child) {
      console.error(`${name}: run ${i} failed (exit ${res.code}); skipped`);
      continue;
    }
    samples[name].push(child.at - dispatch.respondedAt);
  }
}
await server.close();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const base = median(samples['no plugin']);
const rows = Object.entries(samples).map(([name, xs]) => ({
  variant: name,
  runs: xs.length,
  medianMs: +median(xs).toFixed(1),
  ratio: +(median(xs) / base).toFixed(3),
  samples: xs.map((x) => +x.toFixed(1)),
}));
if (asJson) console.log(JSON.stringify({ bench: 'claude-module', runs, rows }, null, 2));
else {
  console.log(`dispatch -> child latency, Claude Code, median of ${runs} (target: module <= 1.05x no plugin)`);
  for (const r of rows)
    console.log(
      `  ${r.variant.padEnd(34)} ${String(r.medianMs).padStart(8)} ms  ${r.ratio.toFixed(3)}x   [${r.samples.join(', ')}]`,
    );
}

// Command-hook cost on Claude Code's dispatch path (the fallback when the hooks module did not load):
// `node dist/hook.cjs claude PreToolUse` on a captured payload (Claude Code 2.1.328) with its parent transcript staged,
// vs a bare `node -e 0`, interleaved, median of N runs each. Target ratio <= 1.15.
// Also: the guard hooks.json puts in front of it when the module is live (`sh -c '[ … ] || exec node …'`).
// Usage: node bench/claude-hook.mjs [runs=21]   (npm run build first)
import { interleavedProcessTimes } from './lib.mjs';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOOK_NODE_ARGS } from './hook-command.mjs';

const root = new URL('..', import.meta.url).pathname;
const runs = Number(process.argv[2] ?? 21);
const fx = join(root, 'test/fixtures/claude');
const home = mkdtempSync(join(tmpdir(), 'tg-bench-'));
const stage = (name) => {
  const to = join(home, name);
  copyFileSync(join(fx, 'transcripts', name), to);
  return to;
};
const payload = (file, transcript) => {
  const { _meta, ...p } = JSON.parse(readFileSync(join(fx, file), 'utf8'));
  return JSON.stringify({ ...p, cwd: home, transcript_path: stage(transcript) });
};
const hook = join(root, 'dist/hook.cjs');
const guard = `[ "$TIERGATE_MODULE_LIVE" = 1 ] || exec "${process.execPath}" "${hook}" claude PreToolUse`;
const cases = {
  'hook: within ceiling (opus -> opus)': {
    cmd: process.execPath,
    args: [...HOOK_NODE_ARGS, hook, 'claude', 'PreToolUse'],
    input: payload('PreToolUse.basic.json', 'basic.parent.at-PreToolUse.jsonl'),
  },
  'hook: over ceiling (sonnet parent, opus child)': {
    cmd: process.execPath,
    args: [...HOOK_NODE_ARGS, hook, 'claude', 'PreToolUse'],
    input: payload('PreToolUse.parent-sonnet.json', 'parent-sonnet.parent.at-PreToolUse.jsonl'),
  },
  'guard with the module live (sh, no node)': {
    cmd: '/bin/sh',
    args: ['-c', guard],
    input: '{}',
    env: { TIERGATE_MODULE_LIVE: '1' },
  },
  'bare node -e 0': { cmd: process.execPath, args: ['-e', '0'], input: '' },
};
const env = { PATH: process.env.PATH, HOME: home, TIERGATE_HOME: join(home, 'tg'), TIERGATE_PRICE_REFRESH: 'off' };
const out = interleavedProcessTimes(cases, runs, env);
console.log(JSON.stringify({ runs, node: process.version, results: out }, null, 2));
rmSync(home, { recursive: true, force: true });

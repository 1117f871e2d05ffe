// Command-hook cost on Codex's dispatch path: `node dist/hook.cjs codex PreToolUse` on a captured payload (recorded on
// codex-cli 0.169.0) vs a bare `node -e 0`, interleaved, median of N runs each. Target ratio <= 1.15.
// Usage: node bench/codex-hook.mjs [runs=21]   (npm run build first)
import { interleavedProcessTimes } from './lib.mjs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOOK_NODE_ARGS } from './hook-command.mjs';

const root = new URL('..', import.meta.url).pathname;
const runs = Number(process.argv[2] ?? 21);
const { _meta, ...payload } = JSON.parse(readFileSync(join(root, 'test/fixtures/codex/PreToolUse.basic.json'), 'utf8'));
const home = mkdtempSync(join(tmpdir(), 'tg-bench-'));
const cases = {
  // within the ceiling (astra -> astra): the common case, prints nothing
  'hook: within ceiling': {
    args: [...HOOK_NODE_ARGS, join(root, 'dist/hook.cjs'), 'codex', 'PreToolUse'],
    input: JSON.stringify({ ...payload, cwd: home }),
  },
  // over the ceiling: decides, prints a deny
  'hook: over ceiling': {
    args: [...HOOK_NODE_ARGS, join(root, 'dist/hook.cjs'), 'codex', 'PreToolUse'],
    input: JSON.stringify({ ...payload, cwd: home, model: 'gpt-6-luna' }),
  },
  // the runner and bundle alone: an event the adapter has no handler for (fails open with a diagnostic)
  'hook: bundle only': { args: [...HOOK_NODE_ARGS, join(root, 'dist/hook.cjs'), 'codex', 'NoSuchEvent'], input: '{}' },
  'bare node -e 0': { args: ['-e', '0'], input: '' },
};
const env = { PATH: process.env.PATH, HOME: home, TIERGATE_HOME: join(home, 'tg') };
const out = interleavedProcessTimes(cases, runs, env);
console.log(JSON.stringify({ runs, node: process.version, results: out }, null, 2));
rmSync(home, { recursive: true, force: true });

// Command-hook cost on Cursor's dispatch path (documentation-only payloads): `node dist/hook.cjs cursor <event>` vs a
// bare `node -e 0`, interleaved, median of N runs each (two warm-up rounds dropped).
// Usage: node bench/cursor-hook.mjs [runs=21]   (npm run build first)
import { interleavedProcessTimes } from './lib.mjs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOOK_NODE_ARGS } from './hook-command.mjs';

const root = new URL('..', import.meta.url).pathname;
const runs = Number(process.argv[2] ?? 21);
const fixture = (name) => {
  const { _meta, ...p } = JSON.parse(readFileSync(join(root, 'test/fixtures/cursor', `${name}.json`), 'utf8'));
  return p;
};
const home = mkdtempSync(join(tmpdir(), 'tg-bench-cursor-'));
const hook = (event) => [...HOOK_NODE_ARGS, join(root, 'dist/hook.cjs'), 'cursor', event];
const task = fixture('preToolUse.task');
const cases = {
  'preToolUse Task: within ceiling': { args: hook('preToolUse'), input: JSON.stringify({ ...task, cwd: home }) },
  'preToolUse Task: over ceiling (deny)': {
    args: hook('preToolUse'),
    input: JSON.stringify({
      ...task,
      cwd: home,
      model: 'claude-haiku-4-5',
      tool_input: { ...task.tool_input, model: 'claude-opus-5' },
    }),
  },
  'subagentStart: inherit': {
    args: hook('subagentStart'),
    input: JSON.stringify({ ...fixture('subagentStart.basic'), cwd: home, tool_call_id: 'x', subagent_id: 'x' }),
  },
  subagentStop: {
    args: hook('subagentStop'),
    input: JSON.stringify({ ...fixture('subagentStop.completed'), cwd: home }),
  },
  'bare node -e 0': { args: ['-e', '0'], input: '' },
};
const env = { PATH: process.env.PATH, HOME: home, TIERGATE_HOME: join(home, 'tg') };
// Hook cases must print Cursor's JSON answer.
for (const c of Object.values(cases)) if (c.args.length > 2) c.check = (r) => r.stdout.startsWith('{');
const out = interleavedProcessTimes(cases, runs, env);
console.log(JSON.stringify({ runs, node: process.version, results: out }, null, 2));
rmSync(home, { recursive: true, force: true });

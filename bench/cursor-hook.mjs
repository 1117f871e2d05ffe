// Command-hook cost on Cursor's dispatch path (documentation-only payloads): `node dist/hook.cjs cursor <event>` vs a
// bare `node -e 0`, interleaved, median of N runs each (two warm-up rounds dropped).
// Usage: node bench/cursor-hook.mjs [runs=21]   (npm run build first)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const runs = Number(process.argv[2] ?? 21);
const fixture = (name) => {
  const { _meta, ...p } = JSON.parse(readFileSync(join(root, 'test/fixtures/cursor', `${name}.json`), 'utf8'));
  return p;
};
const home = mkdtempSync(join(tmpdir(), 'tg-bench-cursor-'));
const hook = (event) => [join(root, 'dist/hook.cjs'), 'cursor', event];
const task = fixture('preToolUse.task');
const cases = {
  'preToolUse Task: within ceiling': { args: hook('preToolUse'), input: JSON.stringify({ ...task, cwd: home }) },
  'preToolUse Task: over ceiling (deny)': { args: hook('preToolUse'), input: JSON.stringify({ ...task, cwd: home, model: 'claude-haiku-4-5', tool_input: { ...task.tool_input, model: 'claude-opus-5' } }) },
  'subagentStart: inherit': { args: hook('subagentStart'), input: JSON.stringify({ ...fixture('subagentStart.basic'), cwd: home, tool_call_id: 'x', subagent_id: 'x' }) },
  'subagentStop': { args: hook('subagentStop'), input: JSON.stringify({ ...fixture('subagentStop.completed'), cwd: home }) },
  'bare node -e 0': { args: ['-e', '0'], input: '' },
};
const env = { PATH: process.env.PATH, HOME: home, TIERGATE_HOME: join(home, 'tg') };
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < runs + 2; i++) {
  for (const [name, c] of Object.entries(cases)) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, c.args, { input: c.input, env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.status !== 0 || (c.args.length > 2 && !r.stdout.startsWith('{'))) throw new Error(`${name}: exit ${r.status}, stdout ${r.stdout}`);
    if (i >= 2) times[name].push(ms);
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const base = median(times['bare node -e 0']);
const out = {};
for (const [name, t] of Object.entries(times)) out[name] = { medianMs: +median(t).toFixed(1), ratio: +(median(t) / base).toFixed(3) };
console.log(JSON.stringify({ runs, node: process.version, results: out }, null, 2));
rmSync(home, { recursive: true, force: true });

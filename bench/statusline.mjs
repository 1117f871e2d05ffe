// `tiergate statusline` as Claude Code runs it (`node dist/statusline.cjs`, the session's JSON on stdin) after every
// assistant message, vs a bare `node -e 0`, interleaved in a new random order each round in the same run. The data dir
// is a used one: a spend summary at its caps (64 sessions, 128 remembered completions), an effective file with budgets
// (written by the real `tiergate config check`), and a spool of 200 undrained hook files (a long Claude Code session:
// its command hooks drain only at session end), 20 of them this session's corrections. Target: the dispatch hook's
// budget, <= 1.25x bare node. Each run's line is checked. Usage: node bench/statusline.mjs [runs=31] (npm run build first).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOOK_NODE_ARGS } from './hook-command.mjs';
import { pairedRatioInterval, quantile as q, rng, shuffled } from './stats.mjs';

const root = new URL('..', import.meta.url).pathname;
const runs = Number(process.argv[2] ?? 31);
const TARGET = 1.25;
const seed = Number(process.env.BENCH_SEED ?? Date.now() % 2 ** 31);
const bundle = join(root, 'dist/statusline.cjs');
if (!existsSync(bundle)) throw new Error('dist/statusline.cjs missing: npm run build');

const home = mkdtempSync(join(tmpdir(), 'tg-bench-statusline-'));
const tg = join(home, 'tg');
const env = { PATH: process.env.PATH, HOME: home, TIERGATE_HOME: tg };
const data = join(tg, 'data');
const SESSION = 'bench-session-0';
mkdirSync(join(tg, 'config'), { recursive: true });
writeFileSync(join(tg, 'config', 'config.json'), JSON.stringify({ budgets: { session: '5.00', day: '40.00' } }));
const check = spawnSync(process.execPath, [join(root, 'dist/cli.js'), 'config', 'check'], { env, encoding: 'utf8' });
if (!existsSync(join(data, 'effective.json'))) throw new Error(`no effective file: ${check.stdout}${check.stderr}`);

const now = Date.now();
const d = new Date(now);
const day = {
  start: new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime(),
  end: new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime(),
};
const month = {
  start: new Date(d.getFullYear(), d.getMonth(), 1).getTime(),
  end: new Date(d.getFullYear(), d.getMonth() + 1, 1).getTime(),
};
const sessions = Object.fromEntries(
  Array.from({ length: 64 }, (_, i) => [
    `claude:bench-session-${i}`,
    { pico: String(1_000_000_000 * (i + 1)), unknown: 0, last: now - i * 1000, corrected: i % 3 },
  ]),
);
const recent = Array.from({ length: 128 }, (_, i) => ({
  k: `key-${i}`,
  s: `claude:bench-session-${i % 64}`,
  at: now - i * 1000,
  pico: '1000000000',
  c: `call-${i}`,
  m: 'claude-haiku-4-5',
  a: 'Explore',
}));
writeFileSync(
  join(data, 'spend.json'),
  JSON.stringify({
    format: 'tiergate-spend/1',
    updatedAt: now,
    zone: null,
    day: { ...day, pico: '64000000000', unknown: 0 },
    month: { ...month, pico: '64000000000', unknown: 0 },
    sessions,
    recent,
    reserved: [],
  }),
);
mkdirSync(join(data, 'spool'), { recursive: true });
for (let i = 0; i < 200; i++) {
  const record = {
    type: 'dispatch',
    observation: {
      kind: 'dispatch',
      harness: 'claude',
      sessionId: i < 20 ? SESSION : `other-${i}`,
      callId: `toolu_${i}`,
      parentModel: 'claude-opus-5-5',
      parentModelSource: 'transcript-tail',
      requestedModel: 'opus',
      requestedAgent: null,
      requestedTier: null,
      agentModel: null,
      subagentType: 'general-purpose',
      capability: {
        canRewrite: true,
        rewriteField: 'model',
        rewriteKind: 'model',
        legalValues: ['haiku', 'sonnet', 'opus'],
        canDeny: true,
      },
      toolInput: { description: 'd', subagent_type: 'general-purpose', model: 'opus' },
      cwd: home,
      escalationFrom: null,
      at: now,
    },
    decision: {
      action: 'correct',
      reason: 'over-ceiling-corrected',
      tier: 'standard',
      effectiveModel: 'sonnet',
      catalogVersion: 'bench',
    },
  };
  writeFileSync(join(data, 'spool', `${10_000 + i}-${now.toString(36)}.jsonl`), `${JSON.stringify(record)}\n`);
}
const input = join(home, 'payload.json');
writeFileSync(
  input,
  JSON.stringify({
    session_id: SESSION,
    transcript_path: join(home, 't.jsonl'),
    cwd: home,
    model: { id: 'claude-opus-5-5', display_name: 'Opus' },
    cost: { total_cost_usd: 1.25 },
  }),
);

// The dispatch hook in the same data dir, for reference: the budget the status line is held to is the hook's.
const { _meta, ...codexPayload } = JSON.parse(
  readFileSync(join(root, 'test/fixtures/codex/PreToolUse.basic.json'), 'utf8'),
);
const hookInput = join(home, 'codex-payload.json');
writeFileSync(hookInput, JSON.stringify({ ...codexPayload, cwd: home }));
const cases = {
  bare: { args: ['-e', '0'], expect: '', input },
  bare2: { args: ['-e', '0'], expect: '', input },
  statusline: { args: [bundle], expect: 'tiergate: subagents $0.0010 · 20 corrected · ', input },
  'dispatch hook (codex, within)': {
    args: [...HOOK_NODE_ARGS, join(root, 'dist/hook.cjs'), 'codex', 'PreToolUse'],
    expect: '',
    input: hookInput,
  },
};
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const load = [loadavg()[0]];
const order = rng(seed);
for (let i = 0; i < runs + 2; i++) {
  for (const [name, c] of shuffled(Object.entries(cases), order)) {
    const fd = openSync(c.input, 'r');
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, c.args, { stdio: [fd, 'pipe', 'pipe'], env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    closeSync(fd);
    if (r.status !== 0) throw new Error(`${name} exited ${r.status}: ${r.stderr}`);
    if (c.expect ? !r.stdout.startsWith(c.expect) : r.stdout !== '')
      throw new Error(`${name}: expected ${JSON.stringify(c.expect)}, got ${JSON.stringify(r.stdout)}`);
    if (i >= 2) times[name].push(ms);
  }
}
load.push(loadavg()[0]);
const median = (xs) => q(xs, 0.5);
const ratio = (name) => {
  const ci = pairedRatioInterval(times[name], times.bare, { seed });
  return {
    median: median(times[name]),
    p90: q(times[name], 0.9),
    ratio: median(times[name]) / median(times.bare),
    ci95: ci,
  };
};
const statusline = ratio('statusline');
const noise = ratio('bare2');
const dispatchHook = ratio('dispatch hook (codex, within)');
console.log(
  JSON.stringify({
    bench: 'statusline',
    runs,
    seed,
    load,
    bareMs: median(times.bare),
    statusline,
    dispatchHook,
    noiseFloor: noise,
    target: TARGET,
    pass: statusline.ratio <= TARGET,
  }),
);

// `budgets.action: "stop"` past the budget (issue 33 items 4 and 5): what a refused tool call of a running child costs
// in process, warm, in the Claude Code dispatch bundle's PreToolUse handler: the check (transcript read), the message
// with the money (the spend summary read, the child's estimate) and the once-per-child record (the first call spools
// it; every later one costs one exclusive create that fails). Against the same child's call under the budget (the
// check alone) in the same process, so the machine's load cancels out of the difference. Target: <= 1 ms per call.
// Usage: npm run build && node bench/child-stop-refused.mjs [calls=2000]. Prints one JSON line.
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { childToolCall, claudePreToolUse, median, p99 } from './child-stop-lib.mjs';

const N = Number(process.argv[2] ?? 2000);

const home = mkdtempSync(join(tmpdir(), 'tg-bench-refused-'));
mkdirSync(join(home, 'config'), { recursive: true });
// A session budget of $0.0001: the "over" child's first line ($0.0105 of opus) is past it; the "under" child's
// lines carry no tokens ($0 each), so it stays under whatever it appends.
writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ budgets: { session: '0.0001', action: 'stop' } }));
process.env.TIERGATE_HOME = home;
process.env.TIERGATE_PRICE_REFRESH = 'off';

const session = join(home, 'projects', 'p', 'sess');
mkdirSync(join(session, 'subagents'), { recursive: true });
const file = (agent) => join(session, 'subagents', `agent-${agent}.jsonl`);
const line = (i, model, input) =>
  `${JSON.stringify({
    type: 'assistant',
    requestId: `req_${i}`,
    message: {
      id: `msg_${i}`,
      model,
      role: 'assistant',
      content: [],
      usage: { input_tokens: input, output_tokens: 0 },
    },
  })}\n`;
const payload = (agent, sessionId) => childToolCall(session, home, agent, sessionId);

const claude = claudePreToolUse();
const ctx = { env: process.env, defer: undefined };
writeFileSync(file('over'), line(0, 'claude-opus-5-5', 2100));
writeFileSync(file('under'), '');
const cases = {
  under: async () => {
    if ((await claude(payload('under', 'sess-under'), ctx)) !== null) throw new Error('unexpected deny');
  },
  refused: async () => {
    const r = await claude(payload('over', 'sess-over'), ctx);
    if (!r || !/Stop now/.test(JSON.stringify(r))) throw new Error('expected a refusal');
  },
};
const t = { under: [], refused: [] };
// The under child's new line is written before the clock starts: the harness writes it, not tiergate.
const before = (n, i) => n === 'under' && appendFileSync(file('under'), line(i, 'claude-haiku-5-5', 0));
for (let i = 0; i < 200; i++)
  for (const n of Object.keys(cases)) {
    before(n, i);
    await cases[n](i);
  }
for (let i = 0; i < N; i++)
  for (const n of Object.keys(cases)) {
    before(n, 200 + i);
    const t0 = performance.now();
    await cases[n](200 + i);
    t[n].push(performance.now() - t0);
  }
const spoolDir = join(home, 'data', 'spool');
const stopped = readdirSync(spoolDir)
  .flatMap((f) => readFileSync(join(spoolDir, f), 'utf8').split('\n').filter(Boolean))
  .filter((l) => l.includes('"child-stopped"')).length;
rmSync(home, { recursive: true, force: true });
const out = Object.fromEntries(Object.entries(t).map(([n, xs]) => [n, { p50Ms: median(xs), p99Ms: p99(xs) }]));
console.log(JSON.stringify({ calls: N, ...out, stoppedRecords: stopped }));

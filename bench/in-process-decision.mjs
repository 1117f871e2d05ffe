// The in-process dispatch decision, warm, as OpenCode and pi run it: the built bundles' own callbacks
// (adapter + routeDispatch: engine, cached policy/prices, spool append), 10,000 calls each after a warm-up.
// Baseline in the same run: an empty async callback awaited the same way (the floor any plugin pays).
// Usage: npm run build && node bench/in-process-decision.mjs [calls]
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const N = Number(process.argv[2] ?? 10_000);
const WARM = 1_000;
const root = new URL('..', import.meta.url).pathname;
const home = mkdtempSync(join(tmpdir(), 'tg-bench-'));
mkdirSync(join(home, 'config'), { recursive: true });
writeFileSync(
  join(home, 'config', 'config.json'),
  JSON.stringify({
    tiers: { opencode: { cheap: 'fake/small' }, pi: { cheap: 'fake/small' } },
    priceOverrides: {
      'fake/parent': { input: '3', output: '15' },
      'fake/big': { input: '15', output: '75' },
      'fake/small': { input: '0.25', output: '1.25' },
    },
  }),
);
const agentDir = join(home, 'pi-agent');
mkdirSync(join(agentDir, 'agents'), { recursive: true });
for (const [n, m] of [
  ['pricey', 'fake/big'],
  ['cheap', 'fake/small'],
  ['tiergate-cheap', 'fake/small'],
]) {
  writeFileSync(join(agentDir, 'agents', `${n}.md`), `---\nname: ${n}\nmodel: ${m}\n---\n`);
}
process.env.TIERGATE_HOME = home;
// Loading the plugins starts the background price refresh: not part of what is measured, and no network.
process.env.TIERGATE_PRICE_REFRESH = 'off';
process.env.PI_CODING_AGENT_DIR = agentDir;

const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

/**
 * All cases run interleaved (call i of every case back to back), so machine load hits them alike and the baseline's
 * own p99 shows how much of a tail is the scheduler rather than tiergate. CPU µs/call comes from process.cpuUsage.
 */
async function measureAll(cases) {
  const names = Object.keys(cases);
  for (let i = 0; i < WARM; i++) for (const n of names) await cases[n](i);
  const t = Object.fromEntries(names.map((n) => [n, new Array(N)]));
  const cpu = Object.fromEntries(names.map((n) => [n, 0]));
  for (let i = 0; i < N; i++) {
    for (const n of names) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await cases[n](i);
      t[n][i] = performance.now() - t0;
      const c = process.cpuUsage(c0);
      cpu[n] += c.user + c.system;
    }
  }
  return Object.fromEntries(
    names.map((n) => {
      const xs = t[n].sort((a, b) => a - b);
      return [n, { p50: pct(xs, 50), p99: pct(xs, 99), max: xs[xs.length - 1], cpuUs: cpu[n] / N }];
    }),
  );
}

const { Tiergate } = await import(join(root, 'dist/opencode.js'));
const oc = await Tiergate({ directory: home, client: undefined });
await oc.config({ model: 'fake/parent', agent: { pricey: { model: 'fake/big' }, cheap: { model: 'fake/small' } } });
await oc['chat.params']({ sessionID: 'ses_1', agent: 'build', model: { id: 'parent', providerID: 'fake' } });

const pi = {
  handlers: {},
  on(name, h) {
    this.handlers[name] = h;
  },
};
(await import(join(root, 'dist/pi.js'))).default(pi);
const piCtx = {
  cwd: home,
  model: { id: 'parent', provider: 'fake' },
  sessionManager: { getSessionId: () => 'pi-session' },
};

const empty = async () => undefined;
const rows = await measureAll({
  'baseline: empty async callback': () => empty({ tool: 'task' }, { args: {} }),
  'opencode tool.execute.before (over-ceiling -> corrected)': (i) =>
    oc['tool.execute.before'](
      { tool: 'task', sessionID: 'ses_1', callID: `c${i}` },
      { args: { description: 'd', prompt: 'p', subagent_type: 'pricey' } },
    ),
  'opencode tool.execute.before (within ceiling)': (i) =>
    oc['tool.execute.before'](
      { tool: 'task', sessionID: 'ses_1', callID: `w${i}` },
      { args: { description: 'd', prompt: 'p', subagent_type: 'cheap' } },
    ),
  'pi tool_call (over-ceiling -> corrected)': (i) =>
    pi.handlers.tool_call(
      { type: 'tool_call', toolName: 'subagent', toolCallId: `p${i}`, input: { agent: 'pricey', task: 't' } },
      piCtx,
    ),
});
const { loadavg, cpus } = await import('node:os');
console.log(
  `in-process decision, ${N} calls each (warm, interleaved), node ${process.version}, ${cpus().length} cores, load ${loadavg()[0].toFixed(1)}`,
);
for (const [name, r] of Object.entries(rows)) {
  console.log(
    `${name.padEnd(58)} p50 ${(r.p50 * 1000).toFixed(1).padStart(7)} µs  p99 ${(r.p99 * 1000).toFixed(1).padStart(7)} µs  max ${(r.max * 1000).toFixed(0).padStart(6)} µs  cpu ${r.cpuUs.toFixed(1).padStart(6)} µs/call`,
  );
}
const worst = Math.max(
  ...Object.entries(rows)
    .filter(([k]) => !k.startsWith('baseline'))
    .map(([, r]) => r.p99),
);
console.log(`target p99 <= 1 ms: ${worst <= 1 ? 'met' : 'MISSED'} (worst p99 ${(worst * 1000).toFixed(1)} µs)`);

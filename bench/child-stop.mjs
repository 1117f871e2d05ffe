// `budgets.action: "stop"` (issue 33): what checking a running child's tool call costs.
//  1. In process, warm: the Claude Code dispatch bundle's PreToolUse handler on a child's tool call (policy stop, under
//     budget: the full check, transcript read included; 2 KiB appended before each call, outside the clock), and pi's and OpenCode's
//     in-process handlers on a child's tool call; against an empty awaited callback. Target: <= 1 ms per call.
//  2. Command hooks: `node dist/hook.cjs claude PreToolUse` on a child's tool call and on an ordinary parent tool call,
//     and Codex's every-tool-call shell guard with the marker absent, against a bare `node -e 0` / `sh -c 'exit 0'`.
//  3. O(new bytes): a 1 GiB sparse transcript (in .cache, deleted after) primed once, then N bytes appended and one
//     check timed, for N from 1 KiB to 8 MiB; the same N on a 1 MiB transcript. The cost follows N, not the file.
// Usage: npm run build && node bench/child-stop.mjs [calls=2000] [hookRuns=31]. Prints one JSON line.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { HOOK_NODE_ARGS } from './hook-command.mjs';
import { childToolCall, claudePreToolUse, median, p99 } from './child-stop-lib.mjs';

const N = Number(process.argv[2] ?? 2000);
const HOOK_RUNS = Number(process.argv[3] ?? 31);
const root = new URL('..', import.meta.url).pathname;
const home = mkdtempSync(join(tmpdir(), 'tg-bench-child-'));
mkdirSync(join(home, 'config'), { recursive: true });
writeFileSync(
  join(home, 'config', 'config.json'),
  JSON.stringify({
    budgets: { session: '1000', action: 'stop' },
    priceOverrides: { 'fake/parent': { input: '3', output: '15' } },
  }),
);
process.env.TIERGATE_HOME = home;
process.env.TIERGATE_PRICE_REFRESH = 'off';

// A Claude Code child transcript line with usage (the shape test/fixtures/claude/transcripts hold), ~2 KiB.
const claudeLine = (i) =>
  `${JSON.stringify({
    type: 'assistant',
    requestId: `req_${i}`,
    message: {
      id: `msg_${i}`,
      model: 'claude-haiku-5-5',
      role: 'assistant',
      content: [{ type: 'text', text: 'x'.repeat(1800) }],
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    },
  })}\n`;

// The transcripts live in .cache (the 1 GiB one is sparse), removed at the end.
const cache = join(root, '.cache', `bench-child-stop-${process.pid}`);
const session = join(cache, 'projects', 'p', 'sess');
const childFile = (agent) => join(session, 'subagents', `agent-${agent}.jsonl`);
const childPayload = (agent) => childToolCall(session, home, agent);
mkdirSync(join(session, 'subagents'), { recursive: true });

// ---- 1. in process ----
const claude = claudePreToolUse();
const ctx = { env: process.env, defer: undefined };
writeFileSync(childFile('warm'), claudeLine(0));
process.env.TIERGATE_PI_CHILD = '1';
const pi = {
  handlers: {},
  on(n, h) {
    this.handlers[n] = h;
  },
};
(await import(join(root, 'dist/pi.js'))).default(pi);
const { Tiergate } = await import(join(root, 'dist/opencode.js'));
const oc = await Tiergate({ directory: home, client: undefined });
await oc.event({ event: { type: 'session.created', properties: { info: { id: 'ses_child', parentID: 'ses_1' } } } });
const piCtx = { cwd: home, sessionManager: { getSessionId: () => 'child' } };

const cases = {
  baseline: async () => {},
  claudeChildToolCall: async (i) => {
    const r = await claude(childPayload('warm'), ctx);
    if (r !== null) throw new Error('unexpected deny');
  },
  piChildToolCall: async (i) => {
    await pi.handlers.message_end(
      {
        message: {
          role: 'assistant',
          provider: 'fake',
          model: 'parent',
          responseId: `r${i}`,
          usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
        },
      },
      piCtx,
    );
    const r = await pi.handlers.tool_call({ toolName: 'bash', toolCallId: `c${i}`, input: { command: 'echo' } }, piCtx);
    if (r !== undefined) throw new Error('unexpected block');
  },
  opencodeChildToolCall: async (i) => {
    await oc.event({
      event: {
        type: 'message.updated',
        properties: {
          info: {
            id: `m${i}`,
            sessionID: 'ses_child',
            role: 'assistant',
            providerID: 'fake',
            modelID: 'parent',
            tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
          },
        },
      },
    });
    await oc['tool.execute.before'](
      { tool: 'bash', sessionID: 'ses_child', callID: `c${i}` },
      { args: { command: 'echo' } },
    );
  },
};
const names = Object.keys(cases);
for (let i = 0; i < 200; i++)
  for (const n of names) {
    if (n === 'claudeChildToolCall') appendFileSync(childFile('warm'), claudeLine(i));
    await cases[n](i);
  }
const t = Object.fromEntries(names.map((n) => [n, []]));
for (let i = 0; i < N; i++)
  for (const n of names) {
    // The child's new line is written before the clock starts: the harness writes it, not tiergate.
    if (n === 'claudeChildToolCall') appendFileSync(childFile('warm'), claudeLine(200 + i));
    const t0 = performance.now();
    await cases[n](200 + i);
    t[n].push(performance.now() - t0);
  }
const inProcess = Object.fromEntries(names.map((n) => [n, { p50Ms: median(t[n]), p99Ms: p99(t[n]) }]));

// ---- 2. command hooks ----
const hook = join(root, 'dist/hook.cjs');
writeFileSync(childFile('cmd'), claudeLine(0));
const parentPayload = { ...childPayload('x'), agent_id: undefined, agent_type: undefined };
const codexGuard =
  'd="${XDG_DATA_HOME:-$HOME/.local/share}/tiergate"; [ -z "$TIERGATE_HOME" ] || d="$TIERGATE_HOME/data"; [ -e "$d/child-stop.on" ] || exit 0; exec node -e 0';
// The environment a hook gets, and no more: this machine's NODE_EXTRA_CA_CERTS alone adds ~35 ms to every Node start
// (a bare start 53 ms against 17 ms), which flattered every ratio to it (session 13).
const env = { PATH: process.env.PATH, HOME: process.env.HOME, TIERGATE_HOME: home, TIERGATE_PRICE_REFRESH: 'off' };
const cmds = {
  bareNode: () => spawnSync(process.execPath, ['-e', '0'], { env }),
  claudeChild: () =>
    spawnSync(process.execPath, [...HOOK_NODE_ARGS, hook, 'claude', 'PreToolUse'], {
      input: JSON.stringify(childPayload('cmd')),
      env,
    }),
  claudeParentTool: () =>
    spawnSync(process.execPath, [...HOOK_NODE_ARGS, hook, 'claude', 'PreToolUse'], {
      input: JSON.stringify(parentPayload),
      env,
    }),
  bareSh: () => spawnSync('sh', ['-c', 'exit 0'], { env }),
  codexGuardNoMarker: () => spawnSync('sh', ['-c', codexGuard], { env }),
};
const h = Object.fromEntries(Object.keys(cmds).map((n) => [n, []]));
for (let i = 0; i < HOOK_RUNS; i++)
  for (const n of Object.keys(cmds)) {
    const t0 = performance.now();
    const r = cmds[n]();
    h[n].push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${n}: exit ${r.status} ${r.stderr}`);
  }
const hookMs = Object.fromEntries(Object.keys(h).map((n) => [n, median(h[n])]));
const commandHooks = {
  ...hookMs,
  claudeChildRatio: hookMs.claudeChild / hookMs.bareNode,
  claudeParentToolRatio: hookMs.claudeParentTool / hookMs.bareNode,
  codexGuardOverBareShMs: hookMs.codexGuardNoMarker - hookMs.bareSh,
};

// ---- 3. O(new bytes) on a 1 GiB transcript ----
const incremental = {};
// The offset file of `file` (one per transcript; the bench's only transcripts are these three).
const offsetOf = (file) => {
  const dir = join(home, 'data', 'child-spend');
  for (const f of readdirSync(dir)) {
    const st = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    if (st.path === file) return st.offset;
  }
  return 0;
};
try {
  const big = childFile('big');
  const fd = openSync(big, 'w');
  ftruncateSync(fd, 1024 ** 3 - 1); // sparse: 1 GiB of holes, no disk used
  closeSync(fd);
  appendFileSync(big, '\n');
  const t0 = performance.now();
  let primeCalls = 0;
  // Priming reads the file once, at most 16 MiB and 250 ms per check (what a child's first tool calls would do).
  for (;;) {
    primeCalls++;
    await claude(childPayload('big'), ctx);
    if (offsetOf(big) >= 1024 ** 3) break;
    if (primeCalls > 1000) throw new Error('priming did not finish');
  }
  incremental.primeWholeFileMs = performance.now() - t0;
  incremental.primeChecks = primeCalls;
  const small = childFile('small');
  writeFileSync(small, claudeLine(0).repeat(512)); // ~1 MiB
  await claude(childPayload('small'), ctx);
  for (const bytes of [1024, 64 * 1024, 1024 * 1024, 8 * 1024 * 1024]) {
    const lines = claudeLine(1).repeat(Math.max(1, Math.round(bytes / claudeLine(1).length)));
    const row = {};
    for (const [name, agent] of [
      ['on1GiB', 'big'],
      ['on1MiB', 'small'],
    ]) {
      const xs = [];
      for (let r = 0; r < 7; r++) {
        appendFileSync(childFile(agent), lines);
        const s0 = performance.now();
        await claude(childPayload(agent), ctx);
        xs.push(performance.now() - s0);
      }
      row[name] = median(xs);
    }
    incremental[`append${bytes}`] = row;
  }
} finally {
  rmSync(cache, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}

console.log(JSON.stringify({ node: process.version, calls: N, inProcess, commandHooks, incremental }));

// `tiergate scan` vs ccusage on the same generated Claude Code corpus (>= 2 GB by default; BENCH_CORPUS_GB to change).
// Compares wall time (median of BENCH_RUNS, default 3; each tiergate run on a fresh ledger) and the grand total cost,
// per model, to the cent, over the models both price. ccusage runs --offline with proxies pointed at a closed
// loopback port: no network. Needs ccusage@20.0.24 + @ccusage/ccusage-linux-x64@20.0.24 (reference/peers.md) in
// .cache/ccusage (installed on first run with npm).
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { median, root, src } from './lib.mjs';

const GB = Number(process.env.BENCH_CORPUS_GB ?? 2.05);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const base = process.env.TIERGATE_BENCH_DIR ?? join(root, '.cache/bench-corpus');
const corpus = join(base, `claude-${GB}gb`);
const ccDir = join(root, '.cache/ccusage');
const ccBin = join(ccDir, 'node_modules/.bin/ccusage');
const NO_NET = {
  HTTPS_PROXY: 'http://127.0.0.1:9',
  HTTP_PROXY: 'http://127.0.0.1:9',
  ALL_PROXY: 'http://127.0.0.1:9',
  https_proxy: 'http://127.0.0.1:9',
  http_proxy: 'http://127.0.0.1:9',
  NO_PROXY: '127.0.0.1,localhost,::1',
};

// Models both tools price offline (probed: ccusage 20.0.24 has no claude-*-5-5 rows and prices them $0, see below).
const MODELS = ['claude-sonnet-4-5', 'claude-opus-4-5', 'claude-haiku-4-5', 'claude-sonnet-4-6', 'claude-opus-4-1'];
const UNPRICED_BY_CCUSAGE = 'claude-opus-5-5';

function rng(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
}

function generate() {
  if (existsSync(join(corpus, 'DONE'))) return;
  rmSync(corpus, { recursive: true, force: true });
  const rand = rng(42);
  const pad = 'x'.repeat(64 * 1024);
  const target = GB * 1e9;
  let written = 0;
  let n = 0;
  const t0 = performance.now();
  const day0 = Date.parse('2026-09-01T00:00:00Z');
  const uuid = () =>
    `${((rand() * 2 ** 32) >>> 0).toString(16).padStart(8, '0')}-${n.toString(16).padStart(4, '0')}-4aaa-8bbb-${(rand() * 2 ** 48).toString(16).slice(0, 12).padEnd(12, '0')}`;
  // One transcript: turns of user / attachment / api-request-shape / assistant (written twice: Claude Code writes one
  // record per content block with the same message.id + requestId), sized like the 2.1.328 fixtures.
  const writeTranscript = (path, sessionId, cwd, agentId, startAt, turns, spawn) => {
    const fd = openSync(path, 'w');
    let buf = '';
    let at = startAt;
    const flush = () => {
      if (buf) written += writeSync(fd, buf);
      buf = '';
    };
    const agents = [];
    for (let t = 0; t < turns; t++) {
      n++;
      at += 5000 + Math.floor(rand() * 60_000);
      const ts = new Date(at).toISOString();
      const side = agentId !== null;
      const common = `"parentUuid":null,"isSidechain":${side},${side ? `"agentId":"${agentId}",` : ''}"userType":"external","cwd":"${cwd}","sessionId":"${sessionId}","version":"2.1.328"`;
      buf += `{${common},"type":"user","uuid":"${uuid()}","timestamp":"${ts}","message":{"role":"user","content":"${pad.slice(0, 200 + Math.floor(rand() * 600))}"}}\n`;
      buf += `{${common},"type":"attachment","uuid":"${uuid()}","timestamp":"${ts}","attachment":{"type":"skill_listing","content":"${pad.slice(0, 1000 + Math.floor(rand() * 5000))}"}}\n`;
      buf += `{"type":"api-request-shape","timestamp":"${ts}","shape":"${pad.slice(0, rand() < 0.2 ? 24_000 : 3000 + Math.floor(rand() * 4000))}"}\n`;
      const model = rand() < 0.03 ? UNPRICED_BY_CCUSAGE : MODELS[Math.floor(rand() * MODELS.length)];
      const input = 1 + Math.floor(rand() * 8000);
      const output = 1 + Math.floor(rand() * 4000);
      const cacheRead = Math.floor(rand() * 120_000);
      const cacheWrite = Math.floor(rand() * 20_000);
      const msgId = `msg_${sessionId.slice(0, 8)}_${n}`;
      const reqId = `req_${n}`;
      const usage = `{"input_tokens":${input},"cache_creation_input_tokens":${cacheWrite},"cache_read_input_tokens":${cacheRead},"output_tokens":${output},"service_tier":"standard","cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":${cacheWrite}}}`;
      let content = `[{"type":"text","text":"${pad.slice(0, 100 + Math.floor(rand() * 600))}"}]`;
      if (!side && spawn && rand() < 0.15) {
        const toolId = `toolu_${n}`;
        agents.push({ toolId, at });
        content = `[{"type":"tool_use","id":"${toolId}","name":"Agent","input":{"description":"d","prompt":"${pad.slice(0, 400)}","subagent_type":"general-purpose","model":"haiku"}}]`;
      }
      const line = `{${common},"type":"assistant","uuid":"${uuid()}","timestamp":"${ts}","requestId":"${reqId}","message":{"id":"${msgId}","type":"message","role":"assistant","model":"${model}","content":${content},"stop_reason":"end_turn","usage":${usage}}}\n`;
      buf += line;
      if (rand() < 0.5) buf += line; // the same response written twice
      if (buf.length > 4 << 20) flush();
    }
    flush();
    closeSync(fd);
    return agents;
  };
  let s = 0;
  while (written < target) {
    const project = `-work-proj${s % 40}`;
    const dir = join(corpus, 'projects', project);
    mkdirSync(dir, { recursive: true });
    const sessionId = `${(s + 1).toString(16).padStart(8, '0')}-1d1b-4961-b8fb-ae5ad8b99df1`;
    const start = day0 + Math.floor((s / (target / 4e6)) * 60 * 86_400_000);
    const agents = writeTranscript(
      join(dir, `${sessionId}.jsonl`),
      sessionId,
      `/work/proj${s % 40}`,
      null,
      start,
      200 + Math.floor(rand() * 200),
      true,
    );
    for (const a of agents) {
      const agentId = `a${n.toString(16)}${s.toString(16)}`;
      const sub = join(dir, sessionId, 'subagents');
      mkdirSync(sub, { recursive: true });
      writeTranscript(
        join(sub, `agent-${agentId}.jsonl`),
        sessionId,
        `/work/proj${s % 40}`,
        agentId,
        a.at,
        5 + Math.floor(rand() * 30),
        false,
      );
      writeFileSync(
        join(sub, `agent-${agentId}.meta.json`),
        JSON.stringify({ agentType: 'general-purpose', toolUseId: a.toolId, model: 'haiku' }),
      );
    }
    s++;
  }
  writeFileSync(join(corpus, 'DONE'), String(written));
  console.log(
    `generated ${(written / 1e9).toFixed(2)} GB in ${s} sessions under ${corpus} in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
}

function ensureCcusage() {
  if (existsSync(ccBin)) return;
  mkdirSync(ccDir, { recursive: true });
  writeFileSync(join(ccDir, 'package.json'), '{"name":"ccusage-bench","private":true}');
  const r = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', 'ccusage@20.0.24', '@ccusage/ccusage-linux-x64@20.0.24'],
    { cwd: ccDir, stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('npm install ccusage failed');
}

const bytesOf = (dir) => {
  let total = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) total += statSync(p).size;
    }
  };
  walk(d0(dir));
  return total;
};
const d0 = (dir) => join(dir, 'projects');

generate();
ensureCcusage();
console.log(`corpus: ${(bytesOf(corpus) / 1e9).toFixed(2)} GB of .jsonl`);

// Wall time is at the mercy of whatever else runs on the machine; CPU time (user + sys, from /usr/bin/time) is reported
// next to it as the steadier figure.
const timeFile = join(base, 'time.out');
function timed(cmd, args, opts) {
  const useTime = existsSync('/usr/bin/time');
  const t = performance.now();
  const r = useTime
    ? spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, cmd, ...args], opts)
    : spawnSync(cmd, args, opts);
  const wall = performance.now() - t;
  let cpu = NaN;
  if (useTime) {
    const [u, s] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
    cpu = (u + s) * 1000;
  }
  return { r, wall, cpu };
}

const env = { PATH: process.env.PATH, HOME: base, CLAUDE_CONFIG_DIR: corpus, ...NO_NET };
const cli = join(root, 'dist/cli.js');
const ours = [];
const oursCpu = [];
let ourJson;
let ledgerHome;
for (let i = 0; i < RUNS; i++) {
  ledgerHome = join(base, `tg-home-${i}`);
  rmSync(ledgerHome, { recursive: true, force: true });
  const { r, wall, cpu } = timed(process.execPath, [cli, 'scan', '--json', '--harness', 'claude'], {
    env: { ...env, TIERGATE_HOME: ledgerHome },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  ours.push(wall);
  oursCpu.push(cpu);
  if (r.status !== 0) throw new Error(`tiergate scan failed: ${r.stderr}`);
  ourJson = JSON.parse(r.stdout);
}
const tInc = performance.now();
spawnSync(process.execPath, [cli, 'scan', '--json', '--harness', 'claude'], {
  env: { ...env, TIERGATE_HOME: ledgerHome },
  encoding: 'utf8',
});
const incremental = performance.now() - tInc;

const theirs = [];
const theirsCpu = [];
let ccJson;
for (let i = 0; i < RUNS; i++) {
  const { r, wall, cpu } = timed(ccBin, ['session', '--json', '--offline'], {
    env,
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  theirs.push(wall);
  theirsCpu.push(cpu);
  if (r.status !== 0) throw new Error(`ccusage failed: ${r.stderr}`);
  ccJson = JSON.parse(r.stdout);
}

// Per-model totals: ours from the ledger's requests table, ccusage's from its per-session model breakdowns.
const { openLedger } = await src('observer/ledger/open.ts');
const db = openLedger({ TIERGATE_HOME: ledgerHome });
const oursByModel = new Map(
  db
    .prepare(
      `SELECT model, CAST(SUM(cost_pico) AS TEXT) AS pico, COUNT(cost_pico) AS priced, COUNT(*) AS n,
     SUM(input) AS input, SUM(output) AS output, SUM(cache_read) AS cr, SUM(cache_write_5m + cache_write_1h) AS cw
   FROM requests WHERE harness = 'claude' GROUP BY model`,
    )
    .all()
    .map((r) => [r.model, r]),
);
db.close();
const ccByModel = new Map();
for (const s of ccJson.session) {
  for (const b of s.modelBreakdowns) {
    const cur = ccByModel.get(b.modelName) ?? { cost: 0, missing: false, input: 0, output: 0, cr: 0, cw: 0 };
    cur.cost += b.cost;
    cur.missing ||= Boolean(b.missingPricing);
    cur.input += b.inputTokens;
    cur.output += b.outputTokens;
    cur.cr += b.cacheReadTokens;
    cur.cw += b.cacheCreationTokens;
    ccByModel.set(b.modelName, cur);
  }
}
let bothOurs = 0n;
let bothTheirs = 0;
console.log('\nmodel                 tiergate USD      ccusage USD   tokens (in/out/cr/cw) equal?');
for (const [model, o] of oursByModel) {
  const c = ccByModel.get(model);
  const ourUsd = o.priced > 0 ? Number(BigInt(o.pico)) / 1e12 : null;
  const tokensEqual = c && c.input === o.input && c.output === o.output && c.cr === o.cr && c.cw === o.cw;
  console.log(
    `${model.padEnd(20)} ${ourUsd === null ? 'unpriced'.padStart(14) : ourUsd.toFixed(4).padStart(14)} ${c ? (c.missing ? '$0 (missing)' : c.cost.toFixed(4)).padStart(16) : '-'.padStart(16)}   ${tokensEqual ? 'yes' : 'NO'}`,
  );
  if (o.priced === o.n && c && !c.missing) {
    bothOurs += BigInt(o.pico);
    bothTheirs += c.cost;
  }
}
const ourCents = Number((bothOurs + 5_000_000_000n) / 10_000_000_000n);
const theirCents = Math.round(bothTheirs * 100);
const mo = median(ours);
const mt = median(theirs);
console.log(
  `\ngrand total over models both price: tiergate $${(ourCents / 100).toFixed(2)}  ccusage $${(theirCents / 100).toFixed(2)}  ${ourCents === theirCents ? 'AGREE to the cent' : `DIFFER by ${((ourCents - theirCents) / 100).toFixed(2)}`}`,
);
console.log(
  `tiergate grand total incl. all priced models: $${ourJson.totals.costUsd}; unpriced: ${ourJson.totals.unpricedRequests} requests (${ourJson.totals.unpricedModels.join(', ')})`,
);
console.log(
  `ccusage grand total: $${ccJson.totals.totalCost.toFixed(2)}; unpriced models: ${(ccJson.totals.unpricedModels ?? []).join(', ') || 'none'}`,
);
console.log(
  `\nwall time, median of ${RUNS}: tiergate scan ${(mo / 1000).toFixed(2)} s (fresh ledger), ccusage session ${(mt / 1000).toFixed(2)} s; ratio tiergate/ccusage = ${(mo / mt).toFixed(2)}`,
);
console.log(
  `CPU time (user+sys), median: tiergate ${(median(oursCpu) / 1000).toFixed(2)} s, ccusage ${(median(theirsCpu) / 1000).toFixed(2)} s; ratio = ${(median(oursCpu) / median(theirsCpu)).toFixed(2)}`,
);
console.log(
  `load average during the run: ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${(await import('node:os')).cpus().length} cores`,
);
console.log(`tiergate scan again on the same ledger (nothing changed): ${(incremental / 1000).toFixed(2)} s`);

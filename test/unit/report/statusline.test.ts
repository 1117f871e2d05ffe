/**
 * issue 34 item 9: `tiergate statusline` (dist/statusline.cjs, as Claude Code runs it) prints one line for the session
 * on stdin: its subagent spend, corrections (drained into the ledger and still in the spool) and the budget with the
 * least left; it writes nothing, never hangs on a silent stdin, and a damaged file drops its part, never the line.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompletionObservation } from '../../../src/contracts/observation.js';
import { SpoolRecordSchema, type SpoolRecord } from '../../../src/contracts/spool.js';
import { rebuildEffective } from '../../../src/config/policy-load.js';
import { runObserver } from '../../../src/collect/drain.js';
import { paths } from '../../../src/io/paths.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { readSpendFile } from '../../../src/observer/spend-read.js';
import { appendSpool, resetSpoolFile } from '../../../src/observer/spool.js';
import { showUsd } from '../../../src/routing-engine/budget.js';
import { fromPayload } from '../../../src/cli/commands/statusline.js';
import { CLAUDE_SESSION, tempHome, testPricer } from '../observer/helpers.js';
import { claudeDispatchObservation } from '../support/claude-dispatch.js';

const BUNDLE = join(import.meta.dirname, '../../../dist/statusline.cjs');
const NOW = Date.now();

function dispatch(callId: string, action: 'correct' | 'allow', session = CLAUDE_SESSION): SpoolRecord {
  const observation = claudeDispatchObservation({
    sessionId: session,
    callId,
    toolInput: { description: 'd', prompt: 'p', subagent_type: 'general-purpose', model: 'opus' },
    cwd: '/work/demo',
    at: NOW - 60_000,
  });
  return SpoolRecordSchema.parse({
    type: 'dispatch',
    observation,
    decision: {
      action,
      reason: action === 'correct' ? 'over-ceiling-corrected' : 'within-ceiling',
      tier: 'standard',
      effectiveModel: 'sonnet',
      catalogVersion: 'bundled-test',
    },
  });
}

function completion(agentId: string, callId: string): SpoolRecord {
  const observation: CompletionObservation = {
    kind: 'completion',
    harness: 'claude',
    sessionId: CLAUDE_SESSION,
    callId,
    agentId,
    subagentType: 'general-purpose',
    servedModel: 'claude-sonnet-5-5',
    usage: {
      input: 100_000,
      output: 20_000,
      cacheRead: 0,
      cacheWrite5m: 0,
      cacheWrite1h: 0,
      reasoning: 0,
      requests: 1,
    },
    status: 'ok',
    outcome: { result: 'done', verified: 'yes', escalationFrom: null },
    startedAt: NOW - 50_000,
    endedAt: NOW - 40_000,
    usageSource: 'transcript-tail',
    dedupeKey: null,
  };
  return SpoolRecordSchema.parse({ type: 'completion', observation, transcriptPath: null });
}

/** A home with a session budget of $5, two corrected dispatches drained into the ledger and one still in the spool. */
function seeded(): Record<string, string> {
  const { env } = tempHome();
  mkdirSync(join(paths(env).config, '..'), { recursive: true });
  writeFileSync(paths(env).config, JSON.stringify({ budgets: { session: '5.00', day: '40.00' } }));
  rebuildEffective(env);
  resetSpoolFile();
  appendSpool(dispatch('c1', 'correct'), env);
  appendSpool(completion('a1', 'c1'), env);
  appendSpool(dispatch('c2', 'correct'), env);
  appendSpool(dispatch('c3', 'allow'), env);
  appendSpool(dispatch('x1', 'correct', 'another-session'), env);
  const db = openLedger(env);
  try {
    runObserver(env, testPricer(), db);
  } finally {
    db.close();
  }
  resetSpoolFile();
  appendSpool(dispatch('c4', 'correct'), env);
  resetSpoolFile();
  return env;
}

const run = (env: Record<string, string>, input: string, args: string[] = []) =>
  spawnSync(process.execPath, [BUNDLE, ...args], {
    input,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 10_000,
  });

/** Every file under the data dir with its size and mtime: a run that writes anything changes this. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const st = statSync(join(e.parentPath, e.name));
      return `${join(e.parentPath, e.name)} ${st.size} ${st.mtimeMs}`;
    })
    .sort();
}

describe('tiergate statusline', () => {
  it("prints the session's spend, its corrections (ledger + spool) and the tightest budget left; writes nothing", () => {
    const env = seeded();
    const spend = readSpendFile(env).file!.sessions[`claude:${CLAUDE_SESSION}`]!;
    const pico = BigInt(spend.pico);
    expect(pico).toBeGreaterThan(0n);
    expect(spend.corrected).toBe(2);
    const before = snapshot(paths(env).data);
    const r = run(env, JSON.stringify({ session_id: CLAUDE_SESSION, cost: { total_cost_usd: 1.25 } }));
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const left = 5_000_000_000_000n - pico;
    expect(r.stdout).toBe(
      `tiergate: subagents ${showUsd(pico)} · 3 corrected · ${showUsd(left)} of $5.00 session budget left\n`,
    );
    expect(r.stdout.length).toBeLessThan(100);
    expect(snapshot(paths(env).data)).toEqual(before);
  });

  it('another session: its own figures; --session names one by hand', () => {
    const env = seeded();
    const other = run(env, JSON.stringify({ session_id: 'another-session' }));
    expect(other.stdout).toBe('tiergate: subagents $0 · 1 corrected · $5.00 of $5.00 session budget left\n');
    expect(run(env, '', ['--session', CLAUDE_SESSION]).stdout).toContain('3 corrected');
  });

  it('no payload, a payload that is not JSON, a damaged spend summary: a line without that part, exit 0', () => {
    const env = seeded();
    expect(run(env, '').stdout).toMatch(/^tiergate: \$[\d.]+ of \$40\.00 daily budget left\n$/);
    expect(run(env, '{"session_id": ').status).toBe(0);
    writeFileSync(join(paths(env).data, 'spend.json'), '{"format":"tiergate-spend/1","day":');
    const r = run(env, JSON.stringify({ session_id: CLAUDE_SESSION }));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('tiergate: subagent spend unknown\n');
  });

  it('a stdin the harness never closes: the line still comes, within the wait', async () => {
    const env = seeded();
    const started = Date.now();
    const child = spawn(process.execPath, [BUNDLE], { env: { PATH: process.env.PATH ?? '', ...env } });
    let out = '';
    child.stdout.on('data', (c) => (out += String(c)));
    const ended = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );
    child.stdin.destroy();
    // The line out, the process ends itself (a blocked socket read would hold a normal exit).
    expect([0, null]).toContain(ended.code);
    expect(out).toMatch(/^tiergate/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reads only what the payload names: a session id that is not a short string, a cost that is not a number', () => {
    expect(fromPayload({ session_id: 'S1', cost: { total_cost_usd: 0.5 } })).toEqual({
      sessionId: 'S1',
      sessionTotalUsd: '0.5',
    });
    expect(fromPayload({ session_id: 'x'.repeat(300), cost: { total_cost_usd: '1' } })).toEqual({
      sessionId: null,
      sessionTotalUsd: null,
    });
    expect(fromPayload([1, 2])).toEqual({ sessionId: null, sessionTotalUsd: null });
  });
});

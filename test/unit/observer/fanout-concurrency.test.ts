/**
 * Fan-out limits under concurrency, through separate hook processes as Claude Code runs them (issue 33 item 2): with
 * limits.concurrentSubagents 2, sixteen dispatches at once in one session let exactly two run (each counts itself under
 * the spend lock), a completion releases its place, and limits.subagentsPerSession caps the session's total. Only the
 * limit is set (no budget), so nothing else can refuse a dispatch. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CompletionObservation } from '../../../src/contracts/observation.js';
import { noteSpend } from '../../../src/observer/spend-record.js';
import { readSpendFile } from '../../../src/observer/spend-read.js';
import { spendPath } from '../../../src/observer/spend-summary.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const HOOK = join(root, 'dist/hook.cjs');
const SESSION = 'sess-fanout';

function home(config: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'tg-fanout-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    TIERGATE_HOME: join(dir, 'tg'),
    TIERGATE_PRICE_REFRESH: 'off',
    // Sixteen node starts on a loaded machine can pass the 5 s hook deadline (read as "allowed unchanged").
    TIERGATE_HOOK_DEADLINE_MS: '30000',
  };
  mkdirSync(join(env.TIERGATE_HOME, 'config'), { recursive: true });
  mkdirSync(join(env.TIERGATE_HOME, 'data'), { recursive: true });
  writeFileSync(join(env.TIERGATE_HOME, 'config', 'config.json'), JSON.stringify(config));
  return { dir, env };
}

function run(args: string[], env: Record<string, string>, input: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? -1, out })); // after stdout's last bytes, unlike 'exit'
    p.stdin.end(input);
  });
}

/** One opus dispatch of an opus parent (within the ceiling: only a limit can refuse it) through the built hook. */
function dispatch(dir: string, env: Record<string, string>, id: string) {
  const transcript = join(dir, 'parent.jsonl');
  if (!existsSync(transcript))
    copyFileSync(join(root, 'test/fixtures/claude/transcripts/basic.parent.at-PreToolUse.jsonl'), transcript);
  const payload = {
    ...fixturePayload('claude/PreToolUse.basic.json'),
    session_id: SESSION,
    tool_use_id: id,
    cwd: dir,
    transcript_path: transcript,
  };
  return run([HOOK, 'claude', 'PreToolUse'], env, JSON.stringify(payload));
}

function finished(callId: string): CompletionObservation {
  return {
    kind: 'completion',
    harness: 'claude',
    sessionId: SESSION,
    callId,
    agentId: `agent-${callId}`,
    subagentType: 'general-purpose',
    servedModel: 'claude-opus-5-5',
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
    status: 'ok',
    outcome: { result: null, verified: null, escalationFrom: null },
    startedAt: null,
    endedAt: Date.now(),
    usageSource: 'test',
    dedupeKey: null,
  };
}
const pricer = { catalogVersion: 't', price: () => ({ picoUsd: 4_000_000_000n, catalogVersion: 't', modelId: 'm' }) };
const denied = (out: string) => out.includes('"deny"');
const reason = (out: string): string => JSON.parse(out).hookSpecificOutput.permissionDecisionReason as string;

beforeAll(() => {
  if (!existsSync(HOOK)) throw new Error('dist/hook.cjs missing: npm run build');
});

describe('fan-out limits (separate hook processes)', () => {
  it('concurrentSubagents 2: of 16 dispatches at once exactly two run; a completion frees one place', {
    timeout: 120_000,
  }, async () => {
    const { dir, env } = home({ limits: { concurrentSubagents: 2 } });
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => dispatch(dir, env, `toolu_f${i}`)));
    for (const r of results) expect(r.code).toBe(0);
    const ran = results.flatMap((r, i) => (denied(r.out) ? [] : [i]));
    console.log(`fan-out concurrency: ${ran.length} of 16 dispatches at once allowed under concurrentSubagents 2`);
    expect(ran).toHaveLength(2);
    const refusal = reason(results.find((r) => denied(r.out))!.out);
    expect(refusal).toMatch(
      /^tiergate: 2 subagents are running in this session, the limit \(limits\.concurrentSubagents\) is 2; wait for one to finish/,
    );
    expect(refusal).toMatch(
      /Money: \$0\.0000 spent on this session's subagents so far \(running ones at their estimate\); no budget set\./,
    );
    expect(refusal).toMatch(/No estimate for this child yet/);
    // Held as appended lines (spend-held.ts) until a fold: what every reader counts.
    const file = readSpendFile(env).file!;
    expect(file.reserved?.map((r) => r.c).sort()).toEqual(ran.map((i) => `toolu_f${i}`).sort());

    // Still two running: refused. One ends ($0.004): the next runs; a refusal now states the spend (the finished child
    // plus the running one's estimate) and the estimate.
    expect(denied((await dispatch(dir, env, 'toolu_more1')).out)).toBe(true);
    noteSpend(finished(`toolu_f${ran[0]}`), env, { pricer });
    expect(denied((await dispatch(dir, env, 'toolu_more2')).out)).toBe(false);
    const again = await dispatch(dir, env, 'toolu_more3');
    expect(reason(again.out)).toMatch(
      /Money: \$0\.0080 spent on this session's subagents so far \(running ones at their estimate\); no budget set\. This child is estimated at \$0\.0040/,
    );
  });

  it('subagentsPerSession 3: the fourth child of the session is refused even with none running', {
    timeout: 60_000,
  }, async () => {
    const { dir, env } = home({ limits: { subagentsPerSession: 3 }, budgets: { session: '5' } });
    for (const n of [1, 2, 3]) {
      expect(denied((await dispatch(dir, env, `toolu_s${n}`)).out)).toBe(false);
      noteSpend(finished(`toolu_s${n}`), env, { pricer });
    }
    const fourth = await dispatch(dir, env, 'toolu_s4');
    expect(reason(fourth.out)).toMatch(
      /^tiergate: this session has started 3 subagents, the limit \(limits\.subagentsPerSession\) is 3; .*Money: \$0\.0120 spent on this session's subagents so far \(running ones at their estimate\); the session budget of \$5 \(\$0\.0120 spent\)\. This child is estimated at \$0\.0040/,
    );
  });

  it('a spend summary that cannot be read fails the limits open: the dispatch runs', { timeout: 60_000 }, async () => {
    const { dir, env } = home({ limits: { concurrentSubagents: 1 } });
    writeFileSync(spendPath(env), '{ not json');
    expect(denied((await dispatch(dir, env, 'toolu_b1')).out)).toBe(false);
    expect(denied((await dispatch(dir, env, 'toolu_b2')).out)).toBe(false);
  });
});

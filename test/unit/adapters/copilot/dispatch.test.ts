/**
 * Copilot CLI's preToolUse through the command-hook runner with the real engine and the bundled price catalog: the
 * native answer per case, what reaches the spool, and the runner's fail-open (no output, exit 0: Copilot CLI 1.0.102
 * takes exit 1 as a denial).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { dispatchAdapter, PARENT_WAIT_MS } from '../../../../src/adapters/copilot/dispatch-command.js';
import type { SpoolRecord } from '../../../../src/contracts/spool.js';
import { runHookWith } from '../../../../src/hook-runner/core.js';
import { resetSpoolFile } from '../../../../src/observer/spool.js';
import { fixture, linesThrough, sandbox, sessionLines, writeAgent, writeSession, type Sandbox } from './support.js';

const SID = '9c85d76b-014b-4635-b712-c426b73f1d59';
const input = (p: unknown) => Readable.from([Buffer.from(JSON.stringify(p))]);

function spool(sb: Sandbox): SpoolRecord[] {
  const dir = join(sb.env.TIERGATE_HOME, 'data', 'spool');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as SpoolRecord),
  );
}

const diagnostics = (sb: Sandbox) => {
  const f = join(sb.env.TIERGATE_HOME, 'data', 'diagnostics.log');
  return existsSync(f) ? readFileSync(f, 'utf8') : '';
};

/** The session file as it stood at preToolUse, with the call's arguments as `args` (the fake model's own call). */
function session(sb: Sandbox, args: Record<string, unknown>, parent = 'gpt-5.4'): void {
  const lines = linesThrough(sessionLines(), 'tool.execution_start').map((l) => {
    const o = JSON.parse(l) as { type: string; data: Record<string, unknown> };
    if (o.type === 'tool.execution_start') o.data = { ...o.data, arguments: args, model: parent };
    return JSON.stringify(o);
  });
  writeSession(sb, SID, lines);
}

async function run(sb: Sandbox, toolArgs: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const payload = { ...fixture('preToolUse.basic-task.json').payload, cwd: sb.project, toolArgs, ...extra };
  return runHookWith({ copilot: async () => dispatchAdapter }, 'copilot', 'preToolUse', input(payload), sb.env);
}

const pricey = (sb: Sandbox, model = 'claude-opus-4.8') =>
  writeAgent(join(sb.copilotHome, 'agents'), 'pricey.agent.md', { name: 'pricey', description: 'd', model });
const task = (extra: Record<string, unknown> = {}) => ({
  name: 'lab-child',
  description: 'lab child task',
  prompt: 'LAB-CHILD: go',
  agent_type: 'pricey',
  mode: 'sync',
  ...extra,
});

describe('copilot preToolUse', () => {
  beforeEach(() => resetSpoolFile());

  it('any tool but task: no answer, no file read, nothing recorded', async () => {
    const sb = sandbox();
    const r = await run(sb, { command: 'ls' }, { toolName: 'bash' });
    expect(r).toEqual({ answer: null, failed: null });
    expect(spool(sb)).toEqual([]);
    expect(existsSync(join(sb.env.TIERGATE_HOME, 'data'))).toBe(false);
  });

  it('an agent whose model costs more than the parent: corrected with the WHOLE arguments, model set to the parent tier', async () => {
    const sb = sandbox();
    pricey(sb);
    const args = task();
    session(sb, args);
    const r = await run(sb, args);
    expect(JSON.parse(r.answer!.stdout!)).toEqual({ modifiedArgs: { ...args, model: 'gpt-5.4' } });
    const [rec] = spool(sb);
    expect(rec).toMatchObject({
      type: 'dispatch',
      observation: {
        harness: 'copilot',
        callId: 'call_lab_1_0',
        parentModel: 'gpt-5.4',
        parentModelSource: 'events-tail',
        agentModel: 'claude-opus-4.8',
        subagentType: 'pricey',
      },
      decision: { action: 'correct', reason: 'over-ceiling-corrected', effectiveModel: 'gpt-5.4' },
    });
    // No prompt text in the record.
    expect(JSON.stringify(rec)).not.toContain('LAB-CHILD');
  });

  it("the call's own pricier model: corrected", async () => {
    const sb = sandbox();
    const args = task({ agent_type: 'general-purpose', model: 'claude-opus-4.8' });
    session(sb, args);
    expect(JSON.parse((await run(sb, args)).answer!.stdout!)).toEqual({ modifiedArgs: { ...args, model: 'gpt-5.4' } });
  });

  it('within the ceiling: no answer, recorded as allowed', async () => {
    const sb = sandbox();
    const args = task({ agent_type: 'general-purpose', model: 'gpt-5.4-mini' });
    session(sb, args);
    expect((await run(sb, args)).answer).toBeNull();
    expect(spool(sb)[0]).toMatchObject({
      decision: { action: 'allow', reason: 'within-ceiling', effectiveModel: 'gpt-5.4-mini' },
    });
  });

  // Issue 33 item 3: no headless signal reaches a Copilot hook (1.0.102), so it always asks; `-p` denies the ask itself
  // and shows the reason, which ends with the non-ask action's retry.
  it('onOverCeiling ask: the permission prompt, stating the money, ending with the retry for a run no one answers', async () => {
    const sb = sandbox();
    mkdirSync(join(sb.env.TIERGATE_HOME, 'config'), { recursive: true });
    writeFileSync(join(sb.env.TIERGATE_HOME, 'config', 'config.json'), JSON.stringify({ onOverCeiling: 'ask' }));
    const args = task({ agent_type: 'general-purpose', model: 'claude-opus-4.8' });
    session(sb, args);
    const a = JSON.parse((await run(sb, args)).answer!.stdout!);
    expect(a).toEqual({
      permissionDecision: 'ask',
      permissionDecisionReason:
        'tiergate asks: subagent model claude-opus-4.8 costs more than your own model gpt-5.4. No estimate of its cost: no finished child of this agent type or this session is recorded yet. tiergate would run it on gpt-5.4 (tier parent). Approve to run it as asked on claude-opus-4.8; refuse to keep the cost down. If no one can answer: Retry the same dispatch with model: "gpt-5.4".',
    });
    expect(spool(sb)[0]).toMatchObject({
      decision: {
        action: 'ask',
        reason: 'over-ceiling-asked',
        effectiveModel: 'claude-opus-4.8',
        detail: { kind: 'ask' },
      },
    });
  });

  it('nothing cheaper fits (a crossover child): denied, the reason names why and what to retry', async () => {
    const sb = sandbox();
    mkdirSync(join(sb.env.TIERGATE_HOME, 'config'), { recursive: true });
    writeFileSync(
      join(sb.env.TIERGATE_HOME, 'config', 'config.json'),
      JSON.stringify({ priceOverrides: { 'cross-model': { input: '0.1', output: '100' } } }),
    );
    const args = task({ agent_type: 'general-purpose', model: 'cross-model' });
    session(sb, args);
    const a = JSON.parse((await run(sb, args)).answer!.stdout!);
    expect(a.permissionDecision).toBe('deny');
    expect(a.permissionDecisionReason).toMatch(
      /^tiergate: subagent model cross-model costs more than your own model gpt-5\.4 \(output \$100\/M vs \$15\/M\)/,
    );
    expect(a.permissionDecisionReason).toMatch(/Retry the same dispatch without model/);
    expect(spool(sb)[0]).toMatchObject({ decision: { action: 'deny', reason: 'over-ceiling-denied' } });
  });

  it('the call not in the session file in time: parent unknown, allowed and recorded, after the bounded wait', async () => {
    const sb = sandbox();
    pricey(sb);
    writeSession(sb, SID, linesThrough(sessionLines(), 'tool.execution_start').slice(0, -1));
    const t0 = Date.now();
    const r = await run(sb, task());
    expect(r.answer).toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(PARENT_WAIT_MS - 50);
    expect(spool(sb)[0]).toMatchObject({
      observation: { parentModel: null, parentModelSource: null, callId: null },
      decision: { action: 'allow', reason: 'unknown-price-allowed' },
    });
    expect(diagnostics(sb)).toMatch(/parent model unknown/);
  });

  it('an agent tiergate cannot find: no rewrite (not even the default tier), allowed', async () => {
    const sb = sandbox();
    const args = task({ agent_type: 'plugin-agent' });
    session(sb, args);
    expect((await run(sb, args)).answer).toBeNull();
    expect(spool(sb)[0]).toMatchObject({
      observation: { capability: { canRewrite: false } },
      decision: { action: 'allow' },
    });
    expect(diagnostics(sb)).toMatch(/defined nowhere tiergate looks/);
  });

  it('a model that is not a string: left alone, nothing decided', async () => {
    const sb = sandbox();
    const args = task({ model: { evil: true } });
    session(sb, args);
    expect((await run(sb, args)).answer).toBeNull();
    expect(spool(sb)).toEqual([]);
  });

  it('a malformed task payload fails open: no output, exit code 0, one diagnostic', async () => {
    const sb = sandbox();
    const r = await runHookWith(
      { copilot: async () => dispatchAdapter },
      'copilot',
      'preToolUse',
      input({ toolName: 'task', toolArgs: 'x' }),
      sb.env,
    );
    expect(r.answer).toBeNull();
    expect(r.answer?.exitCode ?? 0).toBe(0);
    expect(r.failed).toMatch(/sessionId/);
    expect(diagnostics(sb)).toMatch(/hook:copilot:preToolUse/);
  });
});

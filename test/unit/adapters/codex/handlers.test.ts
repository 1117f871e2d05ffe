/**
 * Table test: every Codex hook fixture through the command handlers, with the real engine (decide) and a fixed price
 * table. Asserts the native answer per (event x decision) cell and what reaches the spool.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCodexHandlers } from '../../../../src/adapters/codex/command.js';
import { DEFAULT_POLICY, loadPolicy } from '../../../../src/config/load.js';
import type { DispatchObservation } from '../../../../src/contracts/observation.js';
import type { SpoolRecord } from '../../../../src/contracts/spool.js';
import type { HookContext } from '../../../../src/contracts/hook.js';
import { decide } from '../../../../src/routing-engine/decide.js';
import { fixture, fixtures, ROLLOUTS, testPrices } from './support.js';

function setup(policy: Record<string, unknown> | null = null) {
  const root = mkdtempSync(join(tmpdir(), 'tg-codex-h-'));
  const cwd = join(root, 'project');
  const env = { TIERGATE_HOME: join(root, 'tg'), HOME: root };
  if (policy) {
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, '.tiergate.json'), JSON.stringify(policy));
    // Some cases loosen the policy: only a project the user trusts may (src/config/project-layer.ts).
    mkdirSync(join(env.TIERGATE_HOME, 'config'), { recursive: true });
    writeFileSync(join(env.TIERGATE_HOME, 'config', 'config.json'), JSON.stringify({ trustedProjects: [cwd] }));
  }
  const spooled: SpoolRecord[] = [];
  const routed: DispatchObservation[] = [];
  const observed: (string | null)[] = [];
  const refreshes = { n: 0 };
  const handlers = createCodexHandlers({
    route: (obs, e) => {
      routed.push(obs);
      return decide(obs, loadPolicy(e, obs.cwd).policy, testPrices);
    },
    spool: (r) => void spooled.push(r),
    now: () => 1_800_000_000_000,
    runtime: (e, c) => loadPolicy(e, c),
    observe: (e, c) => void observed.push(c),
    refresh: () => void (refreshes.n += 1),
  });
  const ctx = (event: string): HookContext => ({ env, harness: 'codex', event, startedAt: 0, deadlineMs: 5000 });
  return { cwd, env, handlers, ctx, spooled, routed, observed, refreshes };
}

const withCwd = (p: Record<string, unknown>, cwd: string) => ({ ...p, cwd });

describe('codex PreToolUse: every fixture, default policy (deny-with-retry)', () => {
  // Fixture parent is gpt-6-astra (the priciest): every recorded child is within the ceiling.
  for (const f of fixtures('PreToolUse.')) {
    it(`${f.name} -> no output (within ceiling or not a spawn)`, async () => {
      const s = setup();
      const out = await s.handlers.PreToolUse!(withCwd(f.payload, s.cwd), s.ctx('PreToolUse'));
      expect(out).toBeNull();
      expect(s.routed.length).toBe(f.payload.tool_name === 'collaborationspawn_agent' ? 1 : 0);
    });
  }
});

describe('codex PreToolUse: over the ceiling', () => {
  const overCeiling = () => {
    const p = fixture('PreToolUse.basic.json').payload;
    return { ...p, model: 'gpt-6-sol', tool_input: { ...(p.tool_input as object), model: 'gpt-6-astra' } };
  };

  it('default: denied, the reason names a retry within the ceiling', async () => {
    const s = setup();
    const out = await s.handlers.PreToolUse!(withCwd(overCeiling(), s.cwd), s.ctx('PreToolUse'));
    const a = JSON.parse(out!.stdout!);
    expect(a.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(a.hookSpecificOutput.updatedInput).toBeUndefined();
    expect(a.hookSpecificOutput.permissionDecisionReason).toMatch(
      /gpt-6-astra costs more than your own model gpt-6-sol/,
    );
    expect(a.hookSpecificOutput.permissionDecisionReason).toMatch(/Retry the same dispatch with model: "gpt-6-sol"/);
    expect(a.hookSpecificOutput.permissionDecisionReason).not.toMatch(/\.$/);
  });

  it('codexRewrite on: corrected with allow + the whole input', async () => {
    const s = setup({ codexRewrite: true });
    const payload = overCeiling();
    const out = await s.handlers.PreToolUse!(withCwd(payload, s.cwd), s.ctx('PreToolUse'));
    const a = JSON.parse(out!.stdout!);
    expect(a.hookSpecificOutput.permissionDecision).toBe('allow');
    expect(a.hookSpecificOutput.updatedInput).toEqual({ ...payload.tool_input, model: 'gpt-6-sol' });
  });

  it('warn mode: allowed, no output', async () => {
    const s = setup({ mode: 'warn' });
    expect(await s.handlers.PreToolUse!(withCwd(overCeiling(), s.cwd), s.ctx('PreToolUse'))).toBeNull();
  });

  it('no model named and rewrite on: the default tier, capped by the parent', async () => {
    const s = setup({ codexRewrite: true });
    const p = fixture('PreToolUse.no-model.json').payload;
    const out = await s.handlers.PreToolUse!(withCwd({ ...p, model: 'gpt-6-astra' }, s.cwd), s.ctx('PreToolUse'));
    const a = JSON.parse(out!.stdout!);
    expect(a.hookSpecificOutput.updatedInput.model).toBe(DEFAULT_POLICY.tiers.codex.standard);
  });

  it('a malformed payload throws to the runner (which fails open)', async () => {
    const s = setup();
    await expect(
      Promise.resolve().then(() => s.handlers.PreToolUse!({ hook_event_name: 'PreToolUse' }, s.ctx('PreToolUse'))),
    ).rejects.toThrow();
    expect(s.routed).toEqual([]);
  });
});

describe('codex SubagentStop -> completion in the spool', () => {
  it('child-cheaper: served model, normalised usage, exact call id join, outcome tokens', () => {
    const s = setup();
    const f = fixture('SubagentStop.child-cheaper.json');
    const payload = {
      ...f.payload,
      cwd: s.cwd,
      transcript_path: join(ROLLOUTS, 'child-cheaper.parent.final.jsonl'),
      agent_transcript_path: join(ROLLOUTS, 'child-cheaper.child.at-SubagentStop.jsonl'),
    };
    expect(s.handlers.SubagentStop!(payload, s.ctx('SubagentStop'))).toBeNull();
    expect(s.spooled).toHaveLength(1);
    const r = s.spooled[0]!;
    expect(r.type).toBe('completion');
    if (r.type !== 'completion') return;
    expect(r.observation).toMatchObject({
      harness: 'codex',
      sessionId: f.payload.session_id,
      callId: 'call_demo_1_0',
      agentId: f.payload.agent_id,
      servedModel: 'gpt-6-luna',
      status: 'ok',
      usageSource: 'transcript-tail',
      usage: { input: 500, output: 23, cacheRead: 503, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 3, requests: 1 },
      outcome: { result: 'demo', verified: 'yes', escalationFrom: null }, // 'Result: demo child finished',
      dedupeKey: `codex:${f.payload.agent_id}:${f.payload.turn_id}`,
    });
    expect(r.transcriptPath).toBe(payload.agent_transcript_path);
    // Privacy: the answer text itself never reaches the spool.
    expect(JSON.stringify(r)).not.toContain('demo child finished');
  });

  for (const f of fixtures('SubagentStop.')) {
    it(`${f.name} with unreadable rollouts -> pending completion, still recorded`, () => {
      const s = setup();
      s.handlers.SubagentStop!({ ...f.payload, cwd: s.cwd }, s.ctx('SubagentStop'));
      expect(s.spooled).toHaveLength(1);
      const r = s.spooled[0]!;
      if (r.type !== 'completion') throw new Error('not a completion');
      expect(r.observation).toMatchObject({
        status: 'pending',
        usage: null,
        callId: null,
        servedModel: f.payload.model,
        agentId: f.payload.agent_id,
      });
    });
  }
});

describe('codex SessionStart -> compact policy as additionalContext', () => {
  it('names the parent, the tiers and what happens over the ceiling', async () => {
    const s = setup();
    const out = (await s.handlers.SessionStart!(
      { ...fixture('SessionStart.basic.json').payload, cwd: s.cwd },
      s.ctx('SessionStart'),
    )) as { stdout: string };
    const a = JSON.parse(out.stdout);
    expect(a.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(a.hookSpecificOutput.additionalContext).toMatch(/no higher than your own model \(gpt-6-astra\)/);
    expect(a.hookSpecificOutput.additionalContext).toMatch(/cheap=gpt-6-luna, standard=gpt-6-sol, premium=gpt-6-astra/);
    expect(a.hookSpecificOutput.additionalContext).toMatch(/denied with the model to retry with/);
    expect(a.hookSpecificOutput.additionalContext.length).toBeLessThan(500);
    expect(s.refreshes.n).toBe(1); // the background price refresh was kicked off (it decides itself whether one is due)
  });
  it('rewrite on says corrected; mode off says nothing', async () => {
    const on = setup({ codexRewrite: true });
    const a = JSON.parse(
      (
        (await on.handlers.SessionStart!(
          { ...fixture('SessionStart.basic.json').payload, cwd: on.cwd },
          on.ctx('SessionStart'),
        )) as { stdout: string }
      ).stdout,
    );
    expect(a.hookSpecificOutput.additionalContext).toMatch(/corrected/);
    const off = setup({ mode: 'off' });
    expect(
      await off.handlers.SessionStart!(
        { ...fixture('SessionStart.basic.json').payload, cwd: off.cwd },
        off.ctx('SessionStart'),
      ),
    ).toBeNull();
  });
});

describe('codex SessionEnd -> drain into the ledger', () => {
  it("runs the observer once, for the session's project, and prints nothing", async () => {
    const s = setup();
    expect(
      await s.handlers.SessionEnd!({ ...fixture('SessionEnd.basic.json').payload, cwd: s.cwd }, s.ctx('SessionEnd')),
    ).toBeNull();
    expect(s.observed).toEqual([s.cwd]);
  });
});

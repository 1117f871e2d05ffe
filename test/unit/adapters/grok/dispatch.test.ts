/**
 * Grok Build PreToolUse[spawn_subagent] through the real command-hook runner, the real engine and the bundled price
 * catalog: the payload recorded from Grok 1.0.41 in a sandbox GROK_HOME holding the parent's session folder (its
 * summary.json names the parent's model), the user's config.toml and agent files. Asserts the native answer and the
 * spooled decision.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  answerOf,
  hook,
  PARENT,
  preToolUse,
  sandbox,
  spool,
  stageSession,
  writeConfig,
  type Sandbox,
} from './support.js';

const parentOn = (model: string) => (s: Record<string, any>) => void (s.current_model_id = model);
const MODELS = `auto_update = false\n[model."grok-4.6"]\nbase_url = "http://127.0.0.1:9/v1"\n[model."claude-opus-4-1"]\nbase_url = "http://127.0.0.1:9/v1"\n[model.grok-4-3]\napi_key = "x"\n`;

const decisions = (sb: Sandbox) => spool(sb).flatMap((r) => (r.type === 'dispatch' ? [r] : []));

async function spawn(sb: Sandbox, input: Record<string, unknown>, parent = 'grok-4.6') {
  const t = stageSession(sb, PARENT, parentOn(parent));
  return hook(sb, 'PreToolUse', preToolUse(sb, input, t));
}

describe('grok PreToolUse: the child model as Grok 1.0.41 resolves it, against the parent in summary.json', () => {
  it("over the ceiling: corrected to the parent's model with the WHOLE input (only model changes)", async () => {
    const sb = sandbox();
    writeConfig(sb, MODELS);
    const out = await spawn(sb, { model: 'claude-opus-4-1' });
    expect(out.failed).toBeNull();
    expect(answerOf(out)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        updatedInput: {
          prompt: 'E2E-CHILD: do it',
          description: 'e2e child',
          subagent_type: 'general-purpose',
          run_in_background: false,
          model: 'grok-4.6',
        },
      },
    });
    expect(decisions(sb)[0]!.observation).toMatchObject({
      harness: 'grok',
      parentModel: 'grok-4.6',
      parentModelSource: 'summary.json',
      requestedModel: 'claude-opus-4-1',
      callId: 'call_e2e_2',
    });
    expect(decisions(sb)[0]!.decision).toMatchObject({
      action: 'correct',
      reason: 'over-ceiling-corrected',
      effectiveModel: 'grok-4.6',
    });
  });

  it('within the ceiling: no output, recorded as allowed', async () => {
    const sb = sandbox();
    const out = await spawn(sb, { model: 'grok-4.5' });
    expect(out.answer).toBeNull();
    expect(decisions(sb)[0]!.decision).toMatchObject({ action: 'allow', reason: 'within-ceiling' });
  });

  it('a correction only names a model Grok knows: no tier model outside the catalog, denied when none fits', async () => {
    // Parent on claude-opus-4-1 is not in config; the child asks for a pricier o1. The candidates are the parent's own
    // model (legal: the parent runs on it) and grok-4.6/4.5 (built in); grok-4.3 and grok-4.7 (tiers) are unknown.
    const sb = sandbox();
    const out = await spawn(sb, { model: 'o1' }, 'claude-opus-4-1');
    const a = answerOf(out) as { hookSpecificOutput?: { updatedInput: { model: string } } };
    expect(['claude-opus-4-1', 'grok-4.6', 'grok-4.5']).toContain(a.hookSpecificOutput!.updatedInput.model);
    expect(decisions(sb)[0]!.observation.capability.legalValues).toEqual(['grok-4.6', 'grok-4.5', 'claude-opus-4-1']);
  });

  it('deny is {"decision":"deny","reason"} when no legal model fits under the parent', async () => {
    // claude-opus-4-8 is cheaper than grok-4.6 on no point but its long-context cache read: switching to grok-4.6
    // would raise that cost, and nothing else is known, so it is denied with a retry.
    const sb = sandbox();
    writeConfig(sb, MODELS);
    const out = await spawn(sb, { model: 'claude-opus-4-8' });
    const a = answerOf(out) as { decision: string; reason: string };
    expect(a.decision).toBe('deny');
    expect(a.reason).toMatch(/^tiergate: subagent model claude-opus-4-8 costs more than your own model grok-4\.6/);
    expect(out.answer?.exitCode ?? 0).toBe(0);
  });

  it('precedence: role model > [subagents.models] > agent file > parent', async () => {
    const sb = sandbox();
    mkdirSync(join(sb.project, '.grok', 'agents'), { recursive: true });
    writeFileSync(join(sb.project, '.grok', 'agents', 'explore.md'), '---\nname: explore\nmodel: o1\n---\nExplore.\n');
    writeConfig(
      sb,
      `${MODELS}[subagents.models]\nexplore = "claude-opus-4-1"\n[subagents.roles.explore]\nmodel = "grok-4.5"\n`,
    );
    await spawn(sb, { subagent_type: 'explore' });
    writeConfig(sb, `${MODELS}[subagents.models]\nexplore = "claude-opus-4-1"\n`);
    await spawn(sb, { subagent_type: 'explore' });
    writeConfig(sb, MODELS);
    await spawn(sb, { subagent_type: 'explore' });
    const obs = decisions(sb).map((d) => [d.observation.agentModel, d.decision.action]);
    expect(obs).toEqual([
      ['grok-4.5', 'allow'],
      ['claude-opus-4-1', 'correct'],
      ['o1', 'correct'],
    ]);
    expect(decisions(sb)[0]!.observation.agentModelFrom).toMatch(/config\.toml \[subagents\.roles\.explore\]\.model$/);
    expect(decisions(sb)[2]!.observation.agentModelFrom).toBe(join(sb.project, '.grok', 'agents', 'explore.md'));
  });

  it("the call's model beats a cheap per-type pin, and a cheap pin is never raised", async () => {
    const sb = sandbox();
    writeConfig(sb, `${MODELS}[subagents.models]\ngeneral-purpose = "grok-4-3"\n`);
    const pinned = await spawn(sb, {});
    // grok-4-3 (a config model with no price) is left alone: never replaced by a pricier default tier.
    expect(pinned.answer).toBeNull();
    expect(decisions(sb)[0]!.observation).toMatchObject({ requestedModel: null, agentModel: 'grok-4-3' });
    await spawn(sb, { model: 'grok-4.5' });
    expect(decisions(sb)[1]!.observation).toMatchObject({ requestedModel: 'grok-4.5', agentModel: null });
  });

  it("no model anywhere: the default tier, capped by the parent's model (never above it)", async () => {
    const sb = sandbox();
    await spawn(sb, {});
    await spawn(sb, {}, 'grok-4.3');
    const [onStandard, onCheap] = decisions(sb);
    // Default tier `standard` (grok-4.6) under a grok-4.6 parent. Under a cheaper grok-4.3 parent grok-4.6 would raise
    // the cost: the next tier down that fits is `cheap`, grok-4.3, legal because the parent runs on it.
    expect(onStandard!.decision).toMatchObject({
      action: 'correct',
      reason: 'default-tier-applied',
      effectiveModel: 'grok-4.6',
    });
    expect(onCheap!.decision).toMatchObject({
      action: 'correct',
      reason: 'default-tier-applied',
      effectiveModel: 'grok-4.3',
    });
  });

  it('left alone: another tool, a resumed child, a model that is not a string; faults print nothing (exit 0)', async () => {
    const sb = sandbox();
    stageSession(sb, PARENT);
    expect((await hook(sb, 'PreToolUse', { ...preToolUse(sb), toolName: 'run_terminal_command' })).answer).toBeNull();
    expect((await hook(sb, 'PreToolUse', preToolUse(sb, { model: 'o1', resume_from: 'x' }))).answer).toBeNull();
    expect((await hook(sb, 'PreToolUse', preToolUse(sb, { model: 7 }))).answer).toBeNull();
    expect(decisions(sb)).toEqual([]);
    const bad = await hook(sb, 'PreToolUse', '{"hookEventName": ');
    expect(bad.answer).toBeNull();
    expect(bad.failed).toMatch(/invalid JSON/);
    const noInput = await hook(sb, 'PreToolUse', { ...preToolUse(sb), toolInput: 'x' });
    expect(noInput.answer).toBeNull();
    expect(noInput.failed).toMatch(/toolInput/);
  });

  it('no summary.json beside the transcript: the parent is unknown and an over-ceiling ask is not corrected blind', async () => {
    const sb = sandbox();
    const out = await hook(
      sb,
      'PreToolUse',
      preToolUse(sb, { model: 'claude-opus-4-1' }, join(sb.sessions, 'gone', 'updates.jsonl')),
    );
    expect(out.answer).toBeNull();
    expect(decisions(sb)[0]!.observation.parentModel).toBeNull();
  });
});

/** Claude command hooks replayed from recorded payloads: event x situation -> the native answer and the spool record. */
import { existsSync, readFileSync, writeFileSync, mkdirSync, appendFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diagnosticsLog, fixture, FIXTURES, hook, sandbox, spool, stageTranscript } from './support.js';
import { policyHandoffPath, moduleSpoolDir, spoolFileText } from '../../../../src/adapters/claude/module/core.js';
import { DEFAULT_POLICY } from '../../../../src/config/defaults.js';
import { REWRITE_MARKER_FORMAT, rewriteMarkerPath } from '../../../../src/observer/rewrite-marker.js';
import { openLedger } from '../../../../src/observer/ledger/open.js';

type Case = {
  name: string;
  payload: string;
  transcript: string | null;
  project?: Record<string, unknown>;
  env?: Record<string, string>;
  expect: {
    answer: 'none' | 'correct' | 'deny' | 'ask';
    model?: string;
    parent?: string | null;
    reason?: string;
    spooled: boolean;
  };
};

const CASES: Case[] = [
  {
    name: 'opus parent, opus child: within the ceiling',
    payload: 'PreToolUse.basic.json',
    transcript: 'basic.parent.at-PreToolUse.jsonl',
    expect: { answer: 'none', parent: 'claude-opus-5-5', reason: 'within-ceiling', spooled: true },
  },
  {
    name: '--model sonnet parent, opus child: corrected to sonnet',
    payload: 'PreToolUse.parent-sonnet.json',
    transcript: 'parent-sonnet.parent.at-PreToolUse.jsonl',
    expect: {
      answer: 'correct',
      model: 'sonnet',
      parent: 'claude-sonnet-5-5',
      reason: 'over-ceiling-corrected',
      spooled: true,
    },
  },
  {
    name: 'parent fell back to haiku (529s), opus child: corrected to haiku',
    payload: 'PreToolUse.fallback-switch.json',
    transcript: 'fallback-switch.parent.at-PreToolUse.jsonl',
    expect: {
      answer: 'correct',
      model: 'haiku',
      parent: 'claude-haiku-5-5',
      reason: 'over-ceiling-corrected',
      spooled: true,
    },
  },
  {
    name: 'no model named under an opus parent: default tier (standard = sonnet) applied',
    payload: 'PreToolUse.nomodel.json',
    transcript: 'basic.parent.at-PreToolUse.jsonl',
    expect: { answer: 'correct', model: 'sonnet', reason: 'default-tier-applied', spooled: true },
  },
  {
    name: 'no legal choice within the ceiling: denied with a retry',
    payload: 'PreToolUse.parent-sonnet.json',
    transcript: 'parent-sonnet.parent.at-PreToolUse.jsonl',
    project: { tiers: { claude: { cheap: 'opus', standard: 'opus', premium: 'opus', parent: 'opus' } } },
    expect: { answer: 'deny', reason: 'over-ceiling-denied', spooled: true },
  },
  {
    name: 'warn mode: would correct, allows',
    payload: 'PreToolUse.parent-sonnet.json',
    transcript: 'parent-sonnet.parent.at-PreToolUse.jsonl',
    project: { mode: 'warn' },
    expect: { answer: 'none', reason: 'warn-only', spooled: true },
  },
  {
    name: 'module live: the command hook stands down (decided once)',
    payload: 'PreToolUse.parent-sonnet.json',
    transcript: 'parent-sonnet.parent.at-PreToolUse.jsonl',
    env: { TIERGATE_MODULE_LIVE: '1' },
    expect: { answer: 'none', spooled: false },
  },
  // Issue 33 item 3: CLAUDE_CODE_SESSION_ATTENDED is 1 in the TUI, 0 under -p (2.1.332, seen).
  {
    name: 'onOverCeiling ask, attended session: the permission prompt, recorded as asked',
    payload: 'PreToolUse.parent-sonnet.json',
    transcript: 'parent-sonnet.parent.at-PreToolUse.jsonl',
    project: { onOverCeiling: 'ask' },
    env: { CLAUDE_CODE_SESSION_ATTENDED: '1' },
    expect: { answer: 'ask', reason: 'over-ceiling-asked', spooled: true },
  },
  {
    name: 'onOverCeiling ask, headless (-p): the non-ask action, a correction',
    payload: 'PreToolUse.parent-sonnet.json',
    transcript: 'parent-sonnet.parent.at-PreToolUse.jsonl',
    project: { onOverCeiling: 'ask' },
    env: { CLAUDE_CODE_SESSION_ATTENDED: '0' },
    expect: { answer: 'correct', model: 'sonnet', reason: 'over-ceiling-corrected', spooled: true },
  },
  {
    name: 'module live and armed for ask (TIERGATE_ASK): this hook decides and asks',
    payload: 'PreToolUse.parent-sonnet.json',
    transcript: 'parent-sonnet.parent.at-PreToolUse.jsonl',
    project: { onOverCeiling: 'ask' },
    env: { TIERGATE_MODULE_LIVE: '1', TIERGATE_ASK: '1', CLAUDE_CODE_SESSION_ATTENDED: '1' },
    expect: { answer: 'ask', reason: 'over-ceiling-asked', spooled: true },
  },
  {
    name: 'unknown parent (no transcript): unknown price -> allowed and recorded',
    payload: 'PreToolUse.basic.json',
    transcript: null,
    expect: { answer: 'none', parent: null, reason: 'unknown-price-allowed', spooled: true },
  },
];

describe('PreToolUse[Agent] table', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const sb = sandbox();
      const p = fixture(c.payload);
      p.cwd = sb.project;
      p.transcript_path = c.transcript
        ? stageTranscript(sb, c.transcript, 'parent.jsonl')
        : join(sb.dir, 'missing.jsonl');
      if (c.project) {
        writeFileSync(join(sb.project, '.tiergate.json'), JSON.stringify(c.project));
        // These cases loosen the policy: only a project the user trusts may (src/config/project-layer.ts).
        mkdirSync(join(sb.env.TIERGATE_HOME!, 'config'), { recursive: true });
        writeFileSync(
          join(sb.env.TIERGATE_HOME!, 'config', 'config.json'),
          JSON.stringify({ trustedProjects: [sb.project] }),
        );
      }
      const out = await hook(sb, 'PreToolUse', p, c.env);
      expect(out.failed).toBeNull();
      if (c.expect.answer === 'none') expect(out.answer).toBeNull();
      else {
        const body = JSON.parse(out.answer!.stdout!) as { hookSpecificOutput: Record<string, any> };
        expect(body.hookSpecificOutput.hookEventName).toBe('PreToolUse');
        if (c.expect.answer === 'correct') {
          // The WHOLE original input with only the model changed (a partial input fails validation, 2.1.328).
          expect(body.hookSpecificOutput.updatedInput).toEqual({ ...p.tool_input, model: c.expect.model });
          expect(body.hookSpecificOutput.permissionDecision).toBeUndefined();
        } else if (c.expect.answer === 'ask') {
          expect(body.hookSpecificOutput.permissionDecision).toBe('ask');
          expect(body.hookSpecificOutput.permissionDecisionReason).toMatch(
            /^tiergate asks: subagent model opus costs more than your own model claude-sonnet-5-5\. No estimate of its cost: .* tiergate would run it on sonnet \(tier parent\)\. Approve to run it as asked on opus; refuse to keep the cost down\.$/,
          );
        } else {
          expect(body.hookSpecificOutput.permissionDecision).toBe('deny');
          expect(body.hookSpecificOutput.permissionDecisionReason).toMatch(/^tiergate: .*Retry/);
        }
      }
      const rec = spool(sb).filter((r) => r.type === 'dispatch');
      expect(rec.length).toBe(c.expect.spooled ? 1 : 0);
      if (c.expect.spooled && rec[0]?.type === 'dispatch') {
        expect(rec[0].decision.reason).toBe(c.expect.reason);
        if (c.expect.answer === 'ask')
          expect(rec[0].decision).toMatchObject({ action: 'ask', detail: { kind: 'ask' } });
        expect(rec[0].observation.callId).toBe(p.tool_use_id);
        if (c.expect.parent !== undefined) expect(rec[0].observation.parentModel).toBe(c.expect.parent);
        expect(JSON.stringify(rec[0])).not.toContain('DEMO-CHILD'); // no prompt text in the spool
      }
    });
  }

  it('reads the parent line written after the hook started (the 2.1.328 race), not the previous turn', async () => {
    const sb = sandbox();
    const p = fixture('PreToolUse.fallback-switch.json');
    p.cwd = sb.project;
    const full = readFileSync(join(FIXTURES, 'transcripts', 'fallback-switch.parent.at-PreToolUse.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    const idx = full.findIndex((l) => l.includes('"toolu_demo_4_0"') && JSON.parse(l).type === 'assistant');
    expect(idx).toBeGreaterThan(0);
    const path = join(sb.dir, 'race.jsonl');
    // An earlier turn on opus, then everything before the dispatching line; the line itself lands 60 ms later.
    const previous = JSON.stringify({
      type: 'assistant',
      message: { id: 'msg_prev', model: 'claude-opus-5-5', content: [{ type: 'text', text: 'x' }] },
    });
    writeFileSync(path, `${[previous, ...full.slice(0, idx)].join('\n')}\n`);
    setTimeout(() => appendFileSync(path, `${full.slice(idx).join('\n')}\n`), 60);
    p.transcript_path = path;
    const out = await hook(sb, 'PreToolUse', p);
    expect(JSON.parse(out.answer!.stdout!).hookSpecificOutput.updatedInput.model).toBe('haiku');
    const rec = spool(sb)[0];
    expect(rec?.type === 'dispatch' && rec.observation.parentModelSource).toBe('transcript-tail');
  });

  it("falls back to the previous turn's model when the dispatching line never comes", async () => {
    const sb = sandbox();
    const p = fixture('PreToolUse.basic.json');
    p.cwd = sb.project;
    p.tool_use_id = 'toolu_not_in_transcript';
    p.transcript_path = stageTranscript(sb, 'parent-sonnet.parent.at-PreToolUse.jsonl', 'prev.jsonl');
    await hook(sb, 'PreToolUse', p);
    const rec = spool(sb)[0];
    expect(rec?.type === 'dispatch' && [rec.observation.parentModel, rec.observation.parentModelSource]).toEqual([
      'claude-sonnet-5-5',
      'transcript-tail-previous-turn',
    ]);
  });

  it('ignores other tools and fails open on malformed or oversize input', async () => {
    const sb = sandbox();
    const bash = { ...fixture('PreToolUse.basic.json'), tool_name: 'Bash', tool_input: { command: 'ls' } };
    expect((await hook(sb, 'PreToolUse', bash)).answer).toBeNull();
    const bad = await hook(sb, 'PreToolUse', '{"hook_event_name": "PreToolUse", "tool_name": ');
    expect([bad.answer, typeof bad.failed]).toEqual([null, 'string']);
    const shape = await hook(sb, 'PreToolUse', {
      hook_event_name: 'PreToolUse',
      tool_name: 'Agent',
      tool_input: 'not an object',
    });
    expect([shape.answer, typeof shape.failed]).toEqual([null, 'string']);
    const big = await hook(sb, 'PreToolUse', fixture('PreToolUse.basic.json'), { TIERGATE_HOOK_MAX_STDIN: '64' });
    expect(big.answer).toBeNull();
    expect(diagnosticsLog(sb)).toMatch(/stdin larger than 64 bytes/);
    expect(spool(sb)).toEqual([]);
  });
});

describe('SubagentStop: completion from the child transcript', () => {
  for (const [payload, file, served] of [
    ['SubagentStop.basic.json', 'basic.child.at-SubagentStop.jsonl', 'claude-opus-5-5'],
    ['SubagentStop.served-model.json', 'served-model.child.at-SubagentStop.jsonl', 'claude-demo-served-model'],
  ] as const) {
    it(`${payload}: served model ${served}, the API's usage, joined by the sidecar's toolUseId`, async () => {
      const sb = sandbox();
      const p = fixture(payload);
      p.cwd = sb.project;
      const path = stageTranscript(sb, file, `s/subagents/agent-${p.agent_id}.jsonl`);
      copyFileSync(
        join(FIXTURES, 'transcripts', 'basic.child.agent-meta.json'),
        path.replace(/\.jsonl$/, '.meta.json'),
      );
      p.agent_transcript_path = path;
      const out = await hook(sb, 'SubagentStop', p);
      expect([out.answer, out.failed]).toEqual([null, null]);
      const recs = spool(sb);
      expect(recs.length).toBe(1);
      const c = recs[0]!;
      if (c.type !== 'completion') throw new Error('expected a completion');
      expect(c.observation).toMatchObject({
        agentId: p.agent_id,
        callId: 'toolu_demo_1_0',
        servedModel: served,
        status: 'ok',
        usageSource: 'transcript-tail',
        usage: { input: 1002, output: 22, cacheRead: 502, cacheWrite5m: 302, cacheWrite1h: 0, requests: 1 },
        outcome: { result: 'demo', verified: 'yes' },
      });
      expect(JSON.stringify(c)).not.toContain('demo child finished');
    });
  }

  it('missing child transcript -> a pending record, no throw', async () => {
    const sb = sandbox();
    const p = {
      ...fixture('SubagentStop.basic.json'),
      cwd: sb.project,
      agent_transcript_path: join(sb.dir, 'nope.jsonl'),
    };
    await hook(sb, 'SubagentStop', p);
    const c = spool(sb)[0];
    expect(c?.type === 'completion' && [c.observation.status, c.observation.usage]).toEqual(['pending', null]);
  });
});

describe('SessionStart / SessionEnd and the module hand-off', () => {
  it('SessionStart answers compact policy text; with the module live it also writes the policy hand-off', async () => {
    const sb = sandbox();
    const p: Record<string, any> = { ...fixture('SessionStart.basic.json'), cwd: sb.project };
    writeFileSync(join(sb.project, '.tiergate.json'), JSON.stringify({ defaultTier: 'cheap' }));
    const plain = await hook(sb, 'SessionStart', p);
    const body = JSON.parse(plain.answer!.stdout!);
    expect(body.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(body.hookSpecificOutput.additionalContext).toMatch(/cheap=haiku.*cheap tier/);
    const handoff = policyHandoffPath(join(sb.env.TIERGATE_HOME!, 'data'), p.session_id);
    expect(existsSync(handoff)).toBe(false);
    await hook(sb, 'SessionStart', p, { TIERGATE_MODULE_LIVE: '1' });
    const written = JSON.parse(readFileSync(handoff, 'utf8'));
    expect(written.policy.defaultTier).toBe('cheap');
    expect(written.policy.tiers.claude).toEqual(DEFAULT_POLICY.tiers.claude);
  });

  it('the hand-off tells the module that Claude ignored a rewrite, only when the policy says onIgnoredRewrite: deny', async () => {
    const sb = sandbox();
    const p: Record<string, any> = { ...fixture('SessionStart.basic.json'), cwd: sb.project };
    const handoff = policyHandoffPath(join(sb.env.TIERGATE_HOME!, 'data'), p.session_id);
    const marker = rewriteMarkerPath(sb.env, 'claude');
    mkdirSync(join(marker, '..'), { recursive: true });
    writeFileSync(
      marker,
      JSON.stringify({
        format: REWRITE_MARKER_FORMAT,
        harness: 'claude',
        firstSeenAt: 1,
        lastSeenAt: 2,
        ignored: 1,
        last: { decided: 'haiku', requested: 'opus', served: 'claude-opus-5-5', at: 2 },
      }),
    );
    await hook(sb, 'SessionStart', p, { TIERGATE_MODULE_LIVE: '1' });
    expect(JSON.parse(readFileSync(handoff, 'utf8')).rewriteIgnored).toBe(false);
    const userConfig = join(sb.env.TIERGATE_HOME!, 'config', 'config.json');
    mkdirSync(join(userConfig, '..'), { recursive: true });
    writeFileSync(userConfig, JSON.stringify({ onIgnoredRewrite: 'deny' }));
    await hook(sb, 'SessionStart', p, { TIERGATE_MODULE_LIVE: '1' });
    expect(JSON.parse(readFileSync(handoff, 'utf8')).rewriteIgnored).toBe(true);
  });

  it('SessionEnd drains the module spool through the common spool into the ledger and removes the hand-off', async () => {
    const sb = sandbox();
    const data = join(sb.env.TIERGATE_HOME!, 'data');
    const dir = moduleSpoolDir(data);
    mkdirSync(dir, { recursive: true });
    const record = {
      type: 'completion',
      transcriptPath: null,
      observation: {
        kind: 'completion',
        harness: 'claude',
        sessionId: 's',
        callId: 't',
        agentId: 'a',
        subagentType: null,
        servedModel: 'claude-haiku-5-5',
        usage: { input: 1, output: 2, cacheRead: 3, cacheWrite5m: 4, cacheWrite1h: 0, reasoning: 0, requests: 1 },
        status: 'ok',
        outcome: { result: null, verified: null, escalationFrom: null },
        startedAt: 1,
        endedAt: 2,
        usageSource: 'module',
        dedupeKey: 'claude-turn:x',
      },
    } as const;
    writeFileSync(join(dir, '1-000001-aa.json'), spoolFileText({ record: record as never }));
    writeFileSync(
      join(dir, '1-000002-bb.json'),
      spoolFileText({ diagnostic: { level: 'warn', where: 'claude-module:test', message: 'hello', at: 1 } }),
    );
    writeFileSync(join(dir, '1-000003-cc.json'), '{"format":"something-else"}');
    const handoff = policyHandoffPath(data, 'sess-1');
    mkdirSync(join(handoff, '..'), { recursive: true });
    writeFileSync(handoff, '{}');
    await hook(sb, 'SessionEnd', { ...fixture('SessionEnd.basic.json'), session_id: 'sess-1' });
    // The common spool is drained into the SQLite ledger at SessionEnd (src/collect/drain-hook.ts).
    expect(spool(sb)).toEqual([]);
    const db = openLedger(sb.env);
    try {
      expect(db.prepare('SELECT agent_id, served_model, input, output, usage_source FROM completions').all()).toEqual([
        { agent_id: 'a', served_model: 'claude-haiku-5-5', input: 1, output: 2, usage_source: 'module' },
      ]);
    } finally {
      db.close();
    }
    expect(diagnosticsLog(sb)).toMatch(/claude-module:test.*hello/);
    expect(diagnosticsLog(sb)).toMatch(/dropped 1-000003-cc.json/);
    expect(existsSync(join(dir, '1-000001-aa.json'))).toBe(false);
    expect(existsSync(handoff)).toBe(false);
  });
});

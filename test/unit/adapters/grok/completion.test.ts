/**
 * Grok Build completions through the real runner: PostToolUse (parent), SubagentStop and the child's SessionEnd
 * recorded from Grok 1.0.41, the child's usage.json as Grok wrote it (prompt_tokens 1004 with 300 cached, 14 output
 * with 4 reasoning), and the drain's late-flush re-read of a child still pending.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnedChildId } from '../../../../src/adapters/grok/completion.js';
import { parseGrokSession } from '../../../../src/adapters/grok/transcript.js';
import { CHILD, fixture, hook, PARENT, sandbox, spool, stageSession } from './support.js';

const completions = (sb: ReturnType<typeof sandbox>) => spool(sb).flatMap((r) => (r.type === 'completion' ? [r] : []));

const CHILD_USAGE = {
  input: 704,
  output: 14,
  cacheRead: 300,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 4,
  requests: 1,
};

describe('grok completions', () => {
  it("PostToolUse of a blocking spawn: the child's served model and tokens, joined by the call id", async () => {
    const sb = sandbox();
    const t = stageSession(sb, PARENT);
    stageSession(sb, CHILD);
    const out = await hook(sb, 'PostToolUse', { ...fixture('PostToolUse.json'), cwd: sb.project, transcriptPath: t });
    expect(out.failed).toBeNull();
    expect(out.answer).toBeNull();
    const [c] = completions(sb);
    expect(c!.observation).toMatchObject({
      harness: 'grok',
      sessionId: PARENT,
      callId: 'call_e2e_2',
      agentId: CHILD,
      subagentType: 'general-purpose',
      servedModel: 'fake-big',
      usage: CHILD_USAGE,
      status: 'ok',
      dedupeKey: `grok-agent:${CHILD}`,
    });
    expect(c!.transcriptPath).toBe(join(sb.sessions, CHILD, 'updates.jsonl'));
  });

  it('SubagentStop before usage.json is written: pending, with the outcome tokens only; settled from the folder later', async () => {
    const sb = sandbox();
    const stop = fixture('SubagentStop.json');
    const childT = join(sb.sessions, CHILD, 'updates.jsonl');
    await hook(sb, 'SubagentStop', {
      ...stop,
      cwd: sb.project,
      transcriptPath: childT,
      lastAssistantMessage: 'Done.\nResult: done\nVerified: yes',
    });
    const [c] = completions(sb);
    expect(c!.observation).toMatchObject({ agentId: CHILD, callId: null, status: 'pending', usage: null });
    expect(c!.observation.outcome).toEqual({ result: 'done', verified: 'yes', escalationFrom: null });
    expect(JSON.stringify(c)).not.toContain('Done.');
    // What the drain's late flush reads from the transcript path once the child's files are there.
    stageSession(sb, CHILD);
    const parsed = parseGrokSession(childT);
    expect(parsed.child).toMatchObject({ agentId: CHILD, servedModel: 'fake-big', usage: CHILD_USAGE, complete: true });
  });

  it("the child's SessionEnd has its usage; the parent's SessionEnd records nothing of its own", async () => {
    const sb = sandbox();
    stageSession(sb, CHILD);
    const end = fixture('SessionEnd.child.json');
    await hook(sb, 'SessionEnd', {
      ...end,
      cwd: sb.project,
      transcriptPath: join(sb.sessions, CHILD, 'updates.jsonl'),
    });
    expect(completions(sb)[0]!.observation).toMatchObject({ agentId: CHILD, status: 'ok', usage: CHILD_USAGE });
  });

  it('a background spawn names its child in text; its row waits for the child', async () => {
    expect(
      spawnedChildId({
        type: 'Text',
        text: 'Subagent started in background.\nsubagent_id: 01a24608-b46a-7ef0-b00c-2a4edd477796\ndescription: e2e child',
      }),
    ).toBe('01a24608-b46a-7ef0-b00c-2a4edd477796');
    expect(spawnedChildId({ type: 'Text', text: 'Hook denied: tiergate: …' })).toBeNull();
    const sb = sandbox();
    const t = stageSession(sb, PARENT);
    rmSync(join(t, '..', 'subagents'), { recursive: true });
    const post = fixture('PostToolUse.json');
    await hook(sb, 'PostToolUse', {
      ...post,
      cwd: sb.project,
      transcriptPath: t,
      toolResult: { type: 'Text', text: `Subagent started in background.\nsubagent_id: ${CHILD}\n` },
    });
    expect(completions(sb)[0]!.observation).toMatchObject({ callId: 'call_e2e_2', agentId: CHILD, status: 'pending' });
  });

  it('scan: a parent folder gives its per-model requests and no child; other *.jsonl files parse empty', () => {
    const sb = sandbox();
    const t = stageSession(sb, PARENT);
    const p = parseGrokSession(t);
    expect(p).toMatchObject({ harness: 'grok', sessionId: PARENT, child: null });
    // Without the child's folder its share cannot be told apart: the parent's usage.json as written.
    expect(p.requests.map((r) => [r.model, r.usage.requests])).toEqual([['fake-big', 3]]);
    // With it: the blocking child finished before the parent's usage.json was written, which counts it too (1.0.41):
    // the parent keeps its own two calls, the child's one is the child's.
    stageSession(sb, CHILD);
    expect(parseGrokSession(t).requests.map((r) => [r.model, r.usage])).toEqual([
      [
        'fake-big',
        {
          input: 2111 - 704,
          output: 41 - 14,
          cacheRead: 900 - 300,
          cacheWrite5m: 0,
          cacheWrite1h: 0,
          reasoning: 8,
          requests: 2,
        },
      ],
    ]);
    expect(parseGrokSession(join(t, '..', 'events.jsonl')).requests).toEqual([]);
  });
});

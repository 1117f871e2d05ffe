/**
 * Gemini CLI AfterTool[invoke_agent] -> the child's completion, from its chat file (0.61.0 fixtures), and the chat files
 * read whole for scan: usage, the model sent, the call id shared with the dispatch hook, the child's agent id.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dispatchCallId, readChildRun } from '../../../../src/adapters/gemini/chat-file.js';
import { parseGeminiChat } from '../../../../src/adapters/gemini/transcript.js';
import { wireModel } from '../../../../src/adapters/gemini/models.js';
import { fnv1a } from '../../../../src/io/text.js';
import { createPriceLookup } from '../../../../src/prices/lookup.js';
import { DEFAULT_POLICY } from '../../../../src/config/defaults.js';
import { bundled } from '../../prices/catalog.js';
import { fixture, hook, payload, sandbox, spool, stageChild, stageParent } from './support.js';

const AGENT = 'c8590bcd-3b9c-430d-bca6-cb8de6dc4689';
const PROMPT = 'LAB-CHILD: do the lab task and report.';

/** basic.child.jsonl's one model message: prompt 1002 (502 cached), 22 out, 3 thoughts, sent as the customtools id. */
const CHILD_USAGE = {
  input: 500,
  output: 25,
  cacheRead: 502,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 3,
  requests: 1,
};

describe("gemini AfterTool: the child's usage and model from its chat file", () => {
  it("spools one completion: usage de-duplicated, model as sent, outcome, the dispatch hook's call id", async () => {
    const sb = sandbox();
    const after = fixture('AfterTool.basic-invoke_agent.json');
    const parent = stageParent(sb, after.session_id);
    const child = stageChild(sb, after.session_id, AGENT);
    const out = await hook(sb, 'AfterTool', payload(sb, 'AfterTool.basic-invoke_agent.json', parent));
    expect(out).toEqual({ answer: null, failed: null });
    const recs = spool(sb);
    expect(recs).toHaveLength(1);
    expect(recs[0]).toMatchObject({
      type: 'completion',
      transcriptPath: child,
      observation: {
        harness: 'gemini',
        sessionId: after.session_id,
        agentId: AGENT,
        subagentType: 'pricey',
        callId: `d949af94-a81a-4921-a4cc-2932c5b85e6d#${fnv1a(PROMPT)}`,
        servedModel: 'gemini-3.1-pro-preview-customtools',
        usage: CHILD_USAGE,
        status: 'ok',
        usageSource: 'transcript-tail',
        outcome: { result: 'lab', verified: 'yes' },
        dedupeKey: `gemini:${AGENT}`,
      },
    });
  });

  it('a child file the cap cuts short is spooled pending (the drain re-reads it whole)', async () => {
    const sb = sandbox();
    const after = fixture('AfterTool.basic-invoke_agent.json');
    const parent = stageParent(sb, after.session_id);
    const child = stageChild(sb, after.session_id, AGENT);
    // The smallest cap a policy may set (contracts/config.ts MIN_TAIL_BYTES), under a child file grown past it.
    writeFileSync(child, `${JSON.stringify({ pad: 'x'.repeat(80 * 1024) })}\n${readFileSync(child, 'utf8')}`);
    mkdirSync(join(sb.env.TIERGATE_HOME!, 'config'), { recursive: true });
    writeFileSync(
      join(sb.env.TIERGATE_HOME!, 'config', 'config.json'),
      JSON.stringify({ observer: { tailBytes: 64 * 1024 } }),
    );
    const out = await hook(sb, 'AfterTool', payload(sb, 'AfterTool.basic-invoke_agent.json', parent));
    expect(out.failed).toBeNull();
    expect(spool(sb)[0]).toMatchObject({ type: 'completion', observation: { status: 'pending', agentId: AGENT } });
  });

  it('no child file (agent id not found): recorded without usage, never made up', async () => {
    const sb = sandbox();
    const after = fixture('AfterTool.basic-invoke_agent.json');
    const p = payload(sb, 'AfterTool.basic-invoke_agent.json', stageParent(sb, after.session_id));
    p.tool_response.returnDisplay.recentActivity = [];
    await hook(sb, 'AfterTool', p);
    const [rec] = spool(sb);
    expect(rec).toMatchObject({
      type: 'completion',
      transcriptPath: null,
      observation: { agentId: null, usage: null, servedModel: null, usageSource: 'none' },
    });
  });

  it('an agent id that is not a plain id never becomes a path', async () => {
    const sb = sandbox();
    const after = fixture('AfterTool.basic-invoke_agent.json');
    const p = payload(sb, 'AfterTool.basic-invoke_agent.json', stageParent(sb, after.session_id));
    p.tool_response.returnDisplay.recentActivity = [{ id: '../../../../etc/passwd#0-0' }];
    await hook(sb, 'AfterTool', p);
    expect(spool(sb)[0]).toMatchObject({ transcriptPath: null, observation: { usage: null } });
  });

  it('each model message is written twice: summed once (a second message counts)', () => {
    const sb = sandbox();
    const path = stageChild(sb, 's1', 'a1');
    expect(readChildRun(path, 1 << 20)).toMatchObject({
      usage: CHILD_USAGE,
      messages: 1,
      finished: true,
      truncated: false,
    });
    appendFileSync(
      path,
      `${JSON.stringify({ id: 'm2', type: 'gemini', tokens: { input: 10, output: 5, cached: 0, thoughts: 0, tool: 2, total: 17 }, model: 'gemini-2.5-flash' })}\n`,
    );
    expect(readChildRun(path, 1 << 20)).toMatchObject({
      usage: { ...CHILD_USAGE, input: 512, output: 30, requests: 2 },
      messages: 2,
      model: 'gemini-3.1-pro-preview-customtools',
    });
  });
});

describe('gemini chat files read whole (scan, late flush)', () => {
  it("parent: its own requests, and the invoke_agent call with the hook's call id and the child's agent id", () => {
    const sb = sandbox();
    const path = stageParent(sb, fixture('AfterTool.basic-invoke_agent.json').session_id, 'basic', 99);
    const parse = parseGeminiChat(path);
    expect(parse.harness).toBe('gemini');
    expect(parse.child).toBeNull();
    expect(parse.requests.map((r) => [r.model, r.usage.input, r.usage.cacheRead, r.usage.output, r.sidechain])).toEqual(
      [
        ['gemini-2.5-pro', 500, 501, 24, false],
        ['gemini-2.5-pro', 500, 503, 26, false],
      ],
    );
    expect(parse.dispatches).toEqual([
      {
        callId: dispatchCallId('d949af94-a81a-4921-a4cc-2932c5b85e6d', PROMPT),
        sessionId: parse.sessionId,
        parentModel: 'gemini-2.5-pro',
        requestedModel: null,
        subagentType: 'pricey',
        escalationFrom: null,
        childAgentId: AGENT,
        at: Date.parse('2026-12-03T18:35:18.044Z'),
      },
    ]);
  });

  it("child: under its parent's session, the whole child summarised", () => {
    const sb = sandbox();
    const path = stageChild(sb, 'parent-session', AGENT);
    const parse = parseGeminiChat(path);
    expect(parse.sessionId).toBe('parent-session');
    expect(parse.project).toBe(sb.project);
    expect(parse.requests).toHaveLength(1);
    expect(parse.requests[0]).toMatchObject({
      agentId: AGENT,
      sidechain: true,
      model: 'gemini-3.1-pro-preview-customtools',
      usage: CHILD_USAGE,
    });
    expect(parse.child).toMatchObject({
      agentId: AGENT,
      servedModel: 'gemini-3.1-pro-preview-customtools',
      usage: CHILD_USAGE,
      complete: true,
      outcome: { result: 'lab', verified: 'yes' },
    });
  });
});

describe('gemini models: the id Gemini CLI 0.61.0 sends', () => {
  it('every id tiergate prices for Gemini is in the bundled catalog by its own name (no estimate, no alias)', () => {
    const prices = createPriceLookup([bundled], { claudeProvider: 'anthropic' });
    const names = [
      'gemini-3-pro-preview',
      'gemini-3.1-pro-preview',
      'pro',
      'auto',
      'auto-gemini-3',
      'auto-gemini-2.5',
      'flash',
      'flash-lite',
      ...Object.values(DEFAULT_POLICY.tiers.gemini),
      'gemini-2.5-flash',
    ];
    for (const name of names) {
      const sent = wireModel(name).model;
      const r = prices.resolve(sent, 'gemini');
      expect({ name, sent, how: r.how, priced: r.price !== null }).toEqual({ name, sent, how: 'exact', priced: true });
    }
  });

  it('resolves the names its table rewrites, and leaves the rest', () => {
    expect(wireModel('gemini-3-pro-preview')).toEqual({ model: 'gemini-3.1-pro-preview-customtools', resolved: true });
    expect(wireModel('pro').model).toBe('gemini-3.1-pro-preview-customtools');
    expect(wireModel('flash').model).toBe('gemini-3-flash-preview');
    expect(wireModel('gemini-2.5-flash')).toEqual({ model: 'gemini-2.5-flash', resolved: false });
    expect(wireModel('gemini-3.1-pro-preview-customtools')).toEqual({
      model: 'gemini-3.1-pro-preview-customtools',
      resolved: false,
    });
  });
});

/**
 * Gemini CLI BeforeTool[invoke_agent] through the real command-hook runner, the real engine and the bundled price
 * catalog: recorded payloads (0.61.0) in a sandbox HOME holding the agent definitions and the parent's chat file as
 * they stood at BeforeTool. Asserts the native answer and what reaches the spool.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../../../src/config/defaults.js';
import { extensionFiles } from '../../../../src/adapters/gemini/extension.js';
import { fnv1a } from '../../../../src/io/text.js';
import {
  answerOf,
  fixture,
  fixtureMeta,
  hook,
  payload,
  sandbox,
  spool,
  stageParent,
  writeAgent,
  type Sandbox,
} from './support.js';

const BASIC = 'BeforeTool.basic-invoke_agent.json';
const PROMPT = 'LAB-CHILD: do the lab task and report.';
/** The dispatching model message of the recorded `basic` parent (its 5th line). */
const MESSAGE = 'd949af94-a81a-4921-a4cc-2932c5b85e6d';

/** tiergate's extension as `tiergate install gemini` writes it, where Gemini copies it (default policy). */
function installExtension(sb: Sandbox): void {
  for (const f of extensionFiles('/opt/tiergate', '0.1.0', DEFAULT_POLICY)) {
    const to = join(sb.home, '.gemini', 'extensions', 'tiergate', f.rel);
    mkdirSync(join(to, '..'), { recursive: true });
    writeFileSync(to, f.text);
  }
}

const userAgents = (sb: Sandbox) => join(sb.home, '.gemini', 'agents');

async function dispatch(
  sb: Sandbox,
  agent: string,
  transcript: string | null = stageParent(sb, fixture(BASIC).session_id),
) {
  const p = payload(sb, BASIC, transcript);
  p.tool_input = { ...p.tool_input, agent_name: agent };
  return hook(sb, 'BeforeTool', p);
}

const dispatches = (sb: Sandbox) => spool(sb).flatMap((r) => (r.type === 'dispatch' ? [r] : []));

describe("gemini BeforeTool: decisions on the agent definition's model, as Gemini sends it", () => {
  it('over the ceiling: corrected to tiergate-parent with the WHOLE input (only agent_name changes)', async () => {
    const sb = sandbox();
    installExtension(sb);
    const file = writeAgent(userAgents(sb), 'pricey', 'gemini-3-pro-preview');
    const out = await dispatch(sb, 'pricey');
    expect(out.failed).toBeNull();
    expect(answerOf(out)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'BeforeTool',
        tool_input: { agent_name: 'tiergate-parent', prompt: PROMPT },
      },
    });
    const [rec] = dispatches(sb);
    expect(rec!.decision).toMatchObject({
      action: 'correct',
      reason: 'over-ceiling-corrected',
      tier: 'parent',
      effectiveModel: 'gemini-2.5-pro',
    });
    // Priced as sent: gemini-3-pro-preview goes out as gemini-3.1-pro-preview-customtools (seen on 0.61.0).
    expect(rec!.observation).toMatchObject({
      harness: 'gemini',
      parentModel: 'gemini-2.5-pro',
      parentModelSource: 'chat-file-tail',
      requestedAgent: 'pricey',
      agentModel: 'gemini-3.1-pro-preview-customtools',
      callId: `${MESSAGE}#${fnv1a(PROMPT)}`,
    });
    expect(rec!.observation.agentModelFrom).toBe(
      `${file}: gemini-3-pro-preview, sent as gemini-3.1-pro-preview-customtools`,
    );
    // The prompt never reaches the spool.
    expect(JSON.stringify(spool(sb))).not.toContain('LAB-CHILD');
  });

  it('the answer is the shape Gemini honoured (fixture rewrite: the whole tool_input)', async () => {
    const seen = JSON.parse(fixtureMeta('BeforeTool.rewrite-invoke_agent.json').hook_output_returned.stdout);
    const sb = sandbox();
    installExtension(sb);
    writeAgent(userAgents(sb), 'pricey', 'gemini-3-pro-preview');
    const mine = answerOf(await dispatch(sb, 'pricey'))!;
    expect(Object.keys(mine)).toEqual(Object.keys(seen));
    expect(Object.keys(mine.hookSpecificOutput).sort()).toEqual(Object.keys(seen.hookSpecificOutput).sort());
    expect(Object.keys(mine.hookSpecificOutput.tool_input).sort()).toEqual(
      Object.keys(seen.hookSpecificOutput.tool_input).sort(),
    );
  });

  it('no tier agent to switch to (extension not installed): denied, the reason names the agent, its model and the rule', async () => {
    const sb = sandbox();
    writeAgent(userAgents(sb), 'pricey', 'gemini-3-pro-preview');
    const ans = answerOf(await dispatch(sb, 'pricey'))!;
    expect(Object.keys(ans).sort()).toEqual(['decision', 'reason']);
    expect(ans.decision).toBe('deny');
    expect(ans.reason).toMatch(
      /^tiergate: agent pricey runs on gemini-3\.1-pro-preview-customtools .* which costs more than your own model gemini-2\.5-pro/,
    );
    expect(ans.reason).toContain('Retry the same dispatch with an agent that runs on a model no pricier than yours.');
    expect(dispatches(sb)[0]!.decision).toMatchObject({ action: 'deny', reason: 'over-ceiling-denied' });
  });

  it('an agent limited to some tools is denied, not switched: the retry names the tier agent', async () => {
    const sb = sandbox();
    installExtension(sb);
    writeAgent(userAgents(sb), 'pricey', 'gemini-3-pro-preview', 'tools:\n  - read_file\n');
    const ans = answerOf(await dispatch(sb, 'pricey'))!;
    expect(ans.decision).toBe('deny');
    expect(ans.reason).toContain('Retry the same dispatch with agent_name: "tiergate-parent" (tier parent).');
  });

  it('within the ceiling: no output at all; recorded as allowed', async () => {
    const sb = sandbox();
    installExtension(sb);
    writeAgent(userAgents(sb), 'cheap', 'gemini-2.5-flash');
    const out = await dispatch(sb, 'cheap');
    expect(out.answer).toBeNull();
    expect(dispatches(sb)[0]!.decision).toMatchObject({
      action: 'allow',
      reason: 'within-ceiling',
      effectiveModel: 'gemini-2.5-flash',
    });
  });

  it("an agent without model: runs on the parent's model: allowed, priced as the parent", async () => {
    const sb = sandbox();
    installExtension(sb);
    writeAgent(userAgents(sb), 'plain', null);
    const out = await dispatch(sb, 'plain');
    expect(out.answer).toBeNull();
    expect(dispatches(sb)[0]!.observation).toMatchObject({ agentModel: 'gemini-2.5-pro' });
  });

  it("a project agent beats the user's of the same name once acknowledged; settings agents.overrides beats both", async () => {
    const sb = sandbox();
    installExtension(sb);
    writeAgent(userAgents(sb), 'helper', 'gemini-2.5-flash');
    const file = writeAgent(join(sb.project, '.gemini', 'agents'), 'helper', 'gemini-3-pro-preview');
    // Not acknowledged: Gemini 0.61.0 does not register it (headless: "Subagent not found"), the user's runs.
    expect((await dispatch(sb, 'helper')).answer).toBeNull();
    const acks = join(sb.home, '.gemini', 'acknowledgments');
    mkdirSync(acks, { recursive: true });
    const hash = createHash('sha256').update(readFileSync(file, 'utf8')).digest('hex');
    writeFileSync(join(acks, 'agents.json'), JSON.stringify({ [sb.project]: { helper: `x${hash}` } }));
    expect((await dispatch(sb, 'helper')).answer).toBeNull(); // acknowledged with another content: still the user's
    writeFileSync(join(acks, 'agents.json'), JSON.stringify({ [sb.project]: { helper: hash } }));
    expect(answerOf(await dispatch(sb, 'helper'))!.hookSpecificOutput.tool_input.agent_name).toBe('tiergate-parent');

    const sb2 = sandbox();
    installExtension(sb2);
    writeAgent(userAgents(sb2), 'helper', 'gemini-2.5-flash');
    writeFileSync(
      join(sb2.home, '.gemini', 'settings.json'),
      '{ // comments are allowed\n "agents": { "overrides": { "helper": { "modelConfig": { "model": "gemini-3-pro-preview" } } } } }',
    );
    const out = await dispatch(sb2, 'helper');
    expect(answerOf(out)!.hookSpecificOutput.tool_input.agent_name).toBe('tiergate-parent');
    expect(dispatches(sb2)[0]!.observation.agentModelFrom).toContain('agents.overrides.helper');
  });

  it('a tier agent the model names itself is read like any agent: tiergate-premium over a 2.5-pro parent is corrected', async () => {
    const sb = sandbox();
    installExtension(sb);
    const ans = answerOf(await dispatch(sb, 'tiergate-premium'))!;
    expect(ans.hookSpecificOutput.tool_input.agent_name).toBe('tiergate-parent');
    expect(answerOf(await dispatch(sandboxWithExtension(), 'tiergate-cheap'))).toBeNull();
  });

  it("the parent's model unknown (no chat file): allowed and recorded with parentModel null, never guessed", async () => {
    const sb = sandbox();
    installExtension(sb);
    writeAgent(userAgents(sb), 'pricey', 'gemini-3-pro-preview');
    const out = await dispatch(sb, 'pricey', join(sb.chats, 'not-written.jsonl'));
    expect(out.answer).toBeNull();
    const [rec] = dispatches(sb);
    expect(rec!.decision.action).toBe('allow');
    expect(rec!.observation).toMatchObject({ parentModel: null, parentModelSource: null, callId: null });
  });

  it('an agent Gemini does not have: allowed (Gemini itself refuses it), recorded', async () => {
    const sb = sandbox();
    installExtension(sb);
    expect((await dispatch(sb, 'nosuch')).answer).toBeNull();
    expect(dispatches(sb)[0]!.decision).toMatchObject({ action: 'allow', reason: 'unknown-tier' });
  });

  it('any other tool: nothing printed, nothing recorded', async () => {
    const sb = sandbox();
    const out = await hook(sb, 'BeforeTool', payload(sb, 'BeforeTool.basic-complete_task.json', null));
    expect(out).toEqual({ answer: null, failed: null });
    expect(spool(sb)).toEqual([]);
  });

  it('a malformed payload fails open: no output, one diagnostic', async () => {
    const sb = sandbox();
    for (const bad of [
      '{"tool_name":"invoke_agent"}',
      '{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"invoke_agent","tool_input":"x"}',
      'not json',
    ]) {
      const out = await hook(sb, 'BeforeTool', bad);
      expect(out.answer).toBeNull();
      expect(out.failed).not.toBeNull();
    }
    expect(spool(sb)).toEqual([]);
  });
});

function sandboxWithExtension(): Sandbox {
  const sb = sandbox();
  installExtension(sb);
  return sb;
}

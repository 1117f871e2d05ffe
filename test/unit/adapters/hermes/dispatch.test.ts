/**
 * Hermes pre_tool_call[delegate_task] through the real command-hook runner, the real engine and the bundled price
 * catalog: the payload tiergate's Python plugin sends (built from Hermes 0.19.0's kwargs, test/fixtures/hermes), with
 * the parent's model it tracked and config.yaml's delegation block. Asserts the plugin's answer and the spooled decision.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { clearRuntimeCache } from '../../../../src/config/runtime.js';
import { resetSpoolFile } from '../../../../src/observer/spool.js';
import { runHook } from '../../../../src/wiring/command-hooks.js';
import { readSpool } from '../../../e2e/support/spool-read.js';
import { writeTiergateConfig } from '../../../e2e/support/sandbox.js';
import recorded from '../../../fixtures/hermes/pre_tool_call.delegate_task.json';

function sandbox(policy?: unknown): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-hermes-unit-'));
  resetSpoolFile();
  clearRuntimeCache();
  writeTiergateConfig(join(dir, 'tg'), policy);
  return { TIERGATE_HOME: join(dir, 'tg'), HOME: dir, PATH: process.env.PATH ?? '', TIERGATE_PRICE_REFRESH: 'off' };
}

/** What the plugin writes on stdin: Hermes' own kwargs, plus what it tracked and read. */
const payload = (extra: Record<string, unknown>) => ({
  hook_event_name: 'pre_tool_call',
  session_id: recorded.kwargs.session_id,
  tool_name: recorded.kwargs.tool_name,
  tool_call_id: recorded.kwargs.tool_call_id,
  args: recorded.kwargs.args,
  cwd: '/project',
  parent_model: 'gpt-4o',
  ...extra,
});

async function ask(env: Record<string, string>, body: unknown) {
  const out = await runHook('hermes', 'pre_tool_call', Readable.from([Buffer.from(JSON.stringify(body))]), env);
  return { out, answer: out.answer?.stdout ? JSON.parse(out.answer.stdout) : null };
}

const decisions = (env: Record<string, string>) =>
  readSpool(env.TIERGATE_HOME!).flatMap((r) => (r.type === 'dispatch' ? [r] : []));

describe('hermes pre_tool_call: delegation.model against the parent the plugin tracked', () => {
  it("over the ceiling on the parent's endpoint: corrected (the plugin rewrites the child's requests)", async () => {
    const env = sandbox();
    const { answer } = await ask(env, payload({ delegation_model: 'claude-opus-4-1' }));
    expect(answer).toEqual({ action: 'correct', model: 'gpt-4o' });
    expect(decisions(env)[0]!.observation).toMatchObject({
      harness: 'hermes',
      parentModel: 'gpt-4o',
      agentModel: 'claude-opus-4-1',
      agentModelFrom: 'config.yaml delegation.model',
      callId: 'call_fake_1',
    });
  });

  it('over the ceiling on another endpoint: blocked, the message names the config value to set', async () => {
    const env = sandbox();
    const { answer } = await ask(
      env,
      payload({ delegation_model: 'claude-opus-4-1', delegation_endpoint: 'http://127.0.0.1:9/v1' }),
    );
    expect(answer.action).toBe('block');
    expect(answer.message).toMatch(
      /^tiergate: delegate_task's child runs on claude-opus-4-1 .*delegation\.model: gpt-4o/,
    );
    expect(decisions(env)[0]!.decision).toMatchObject({ action: 'deny', reason: 'over-ceiling-denied' });
  });

  it('within the ceiling: nothing printed, allowed', async () => {
    const env = sandbox();
    const { answer } = await ask(env, payload({ delegation_model: 'gpt-4o-mini' }));
    expect(answer).toBeNull();
    expect(decisions(env)[0]!.decision).toMatchObject({ action: 'allow', effectiveModel: 'gpt-4o-mini' });
  });

  it('another tool, or a payload the plugin would not write: nothing printed (fail open)', async () => {
    const env = sandbox();
    expect((await ask(env, payload({ tool_name: 'terminal' }))).answer).toBeNull();
    const bad = await ask(env, { ...payload({}), args: 'not an object' });
    expect(bad.answer).toBeNull();
    expect(decisions(env)).toEqual([]);
  });
});

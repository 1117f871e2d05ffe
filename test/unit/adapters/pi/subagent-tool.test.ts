import { describe, expect, it } from 'vitest';
import { createTierSubagentTool, parseChildEvents, type ToolDeps } from '../../../../src/adapters/pi/subagent-tool.js';
import { observePiCompletions } from '../../../../src/adapters/pi/observe.js';
import type { CollectResult } from '../../../../src/io/processes.js';

const assistant = (model: string, text: string, usage: Record<string, unknown>) =>
  JSON.stringify({
    type: 'message_end',
    message: {
      role: 'assistant',
      provider: 'fake',
      model,
      content: [{ type: 'text', text }],
      usage,
      stopReason: 'stop',
    },
  });
const STDOUT = [
  JSON.stringify({ type: 'session', id: 'x' }),
  JSON.stringify({ type: 'message_end', message: { role: 'user', content: [{ type: 'text', text: 'Task: t' }] } }),
  assistant('small', 'step', {
    input: 100,
    output: 10,
    cacheRead: 5,
    cacheWrite: 0,
    totalTokens: 115,
    cost: { total: 0.001 },
  }),
  'not json',
  assistant('small', 'final answer\nResult: done', {
    input: 200,
    output: 20,
    cacheRead: 50,
    cacheWrite: 1,
    totalTokens: 271,
    cost: { total: 0.002 },
  }),
].join('\n');

function deps(over: Partial<ToolDeps> = {}, result: Partial<CollectResult> = {}) {
  const calls: Array<{ command: string; args: string[]; env?: NodeJS.ProcessEnv }> = [];
  const d: ToolDeps = {
    env: { PATH: '/bin' },
    tierModel: (tier) => (({ cheap: 'fake/small' }) as Record<string, string>)[tier] ?? null,
    run: async (command, args, opts) => {
      calls.push({ command, args, env: opts.env });
      return { code: 0, stdout: STDOUT, stderr: '', timedOut: false, truncated: false, error: null, ...result };
    },
    piCommand: () => ({ command: '/usr/bin/node', args: ['/opt/pi/cli.js'] }),
    ...over,
  };
  return { d, calls };
}

describe('tiergate pi subagent tool', () => {
  it("sums the child's assistant turns and keeps the last text", () => {
    const r = parseChildEvents(STDOUT);
    expect(r.messages).toHaveLength(2);
    expect(r.usage).toMatchObject({
      input: 300,
      output: 30,
      cacheRead: 55,
      cacheWrite: 1,
      turns: 2,
      contextTokens: 271,
    });
    expect(r.text).toBe('final answer\nResult: done');
  });

  it("runs the child on the tier's model, marked as a child, and returns the example-shaped details", async () => {
    const { d, calls } = deps();
    const tool = createTierSubagentTool(d);
    const out = await tool.execute('call_1', { tier: 'cheap', task: 'do it' }, undefined, undefined, {
      cwd: '/proj',
      model: { id: 'parent', provider: 'fake' },
    });
    expect(calls[0]!.command).toBe('/usr/bin/node');
    expect(calls[0]!.args).toEqual([
      '/opt/pi/cli.js',
      '--mode',
      'json',
      '-p',
      '--no-session',
      '--model',
      'fake/small',
      'Task: do it',
    ]);
    expect(calls[0]!.env?.TIERGATE_PI_CHILD).toBe('1');
    expect(out.content[0]!.text).toBe('final answer\nResult: done');
    expect('isError' in out).toBe(false);
    // The gate's completion code reads it like pi's example tool.
    const [c] = observePiCompletions({ toolName: 'subagent', toolCallId: 'call_1', details: out.details }, {}, 1);
    expect(c).toMatchObject({
      subagentType: 'tiergate-cheap',
      servedModel: 'fake/small',
      usage: { input: 300, output: 30, requests: 2 },
      outcome: { result: 'done' },
    });
  });

  it("parent tier runs on the parent's own model; an unmapped tier is an error the model sees", async () => {
    const { d, calls } = deps();
    const tool = createTierSubagentTool(d);
    await tool.execute('c', { tier: 'parent', task: 't' }, undefined, undefined, {
      model: { id: 'parent', provider: 'fake' },
    });
    expect(calls[0]!.args).toContain('fake/parent');
    await expect(tool.execute('c', { tier: 'premium', task: 't' }, undefined, undefined, {})).rejects.toThrow(
      /tier 'premium' has no model for pi/,
    );
  });

  it('reports a failed child as an error result, with its details kept', async () => {
    const { d } = deps({}, { code: 1, stdout: '', stderr: 'boom\nNo API key' });
    const out = await createTierSubagentTool(d).execute('c', { tier: 'cheap', task: 't' }, undefined, undefined, {});
    expect(out).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('No API key') }] });
    expect(out.details.results[0]!.exitCode).toBe(1);
  });
});

/**
 * tiergate in the real Claude Code binary (pinned 2.1.328) against a fake Anthropic API on 127.0.0.1. Every assertion
 * is on what the API received (the child's request model) or on the records tiergate wrote.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import { CHILD_MARKER, dispatchScript, startFakeAnthropic, type FakeAnthropic, type Script } from '../support/fake-anthropic-api.js';
import { makeSandbox, runClaude, writeUserSettings, type ClaudeSandbox } from '../support/claude-run.js';

const root = join(import.meta.dirname, '../../..');
const bin = harnessBin('claude');
const d = bin.ok ? describe : describe.skip;

const AGENT_INPUT = (model?: string) => ({
  description: 'tg child task', prompt: `${CHILD_MARKER}: do the task and report.`, subagent_type: 'general-purpose',
  run_in_background: false, ...(model ? { model } : {}),
});

type Spooled = { type: string; observation: Record<string, any>; decision?: Record<string, any> };

/** Every record tiergate spooled in this sandbox: the common spool (jsonl) plus undrained module records. */
function spooled(sb: ClaudeSandbox): Spooled[] {
  const out: Spooled[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, name.name);
      if (name.isDirectory()) walk(p);
      else if (name.name.endsWith('.jsonl')) for (const l of readFileSync(p, 'utf8').split('\n')) if (l.trim()) out.push(JSON.parse(l));
      else if (name.name.endsWith('.json')) {
        const body = JSON.parse(readFileSync(p, 'utf8'));
        if (body.record) out.push(body.record);
      }
    }
  };
  walk(join(sb.tiergateHome, 'data', 'spool'));
  return out;
}

function diagnostics(sb: ClaudeSandbox): string {
  const p = join(sb.tiergateHome, 'data', 'diagnostics.log');
  return existsSync(p) ? readFileSync(p, 'utf8') : '';
}

const childRequests = (api: FakeAnthropic) => api.requests.filter((r) => r.role === 'child');

d('Claude Code end to end', () => {
  let api: FakeAnthropic;
  const claude = bin.ok ? bin.bin : '';

  beforeAll(async () => {
    api = await startFakeAnthropic(dispatchScript(AGENT_INPUT('opus')));
  });
  afterAll(async () => {
    await api?.close();
  });

  async function run(script: Script, args: string[], opts: { env?: Record<string, string>; settings?: Record<string, unknown>; sb?: ClaudeSandbox } = {}) {
    api.requests.length = 0;
    api.setScript(script);
    const sb = opts.sb ?? makeSandbox();
    if (opts.settings) writeUserSettings(sb, opts.settings);
    const res = await runClaude(claude, sb, api.url, ['-p', 'TG-PARENT: delegate the task.', '--output-format', 'json', '--allowedTools', 'Agent', ...args], { env: opts.env });
    return { sb, res };
  }

  it('(1) module path: a haiku parent dispatching opus -> the child runs on haiku; decided once, by the module', async () => {
    const { sb, res } = await run(dispatchScript(AGENT_INPUT('opus')), ['--model', 'haiku', '--plugin-dir', root]);
    expect(res.code, res.stderr).toBe(0);
    const kids = childRequests(api);
    expect(kids.length).toBe(1);
    expect(kids[0]!.model).toBe('claude-haiku-5-5');
    const dispatches = spooled(sb).filter((r) => r.type === 'dispatch');
    expect(dispatches.length).toBe(1);
    expect(dispatches[0]!.observation.parentModelSource).toBe('agent.spawn');
    expect(dispatches[0]!.decision!.action).toBe('correct');
  });
});

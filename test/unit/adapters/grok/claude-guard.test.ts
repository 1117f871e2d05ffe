/**
 * Grok Build 1.0.41 runs ~/.claude/settings.json hooks with its own payload (seen): tiergate's Claude command hooks
 * stand aside there, so one spawn gets one decision (Grok's own hook) and no Claude record.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { firedByGrok } from '../../../../src/adapters/claude/grok-guard.js';
import { runHook } from '../../../../src/wiring/command-hooks.js';
import { fixture, sandbox, spool } from './support.js';

const run = (sb: ReturnType<typeof sandbox>, event: string, body: unknown, env: Record<string, string> = {}) =>
  runHook('claude', event, Readable.from([Buffer.from(JSON.stringify(body))]), { ...sb.env, ...env });

describe('Claude hooks in a Grok session', () => {
  it('recognises Grok by GROK_HOOK_EVENT or by the camelCase envelope', () => {
    expect(firedByGrok({ hook_event_name: 'PreToolUse' }, { GROK_HOOK_EVENT: 'pre_tool_use' })).toBe(true);
    expect(firedByGrok(fixture('PreToolUse.json'), {})).toBe(true);
    expect(firedByGrok({ hook_event_name: 'PreToolUse', tool_name: 'Agent' }, {})).toBe(false);
  });

  it('every Claude handler stands aside: no answer, nothing spooled', async () => {
    const sb = sandbox();
    const env = { GROK_HOOK_EVENT: 'pre_tool_use' };
    // Grok's payload with the Claude tool name a settings.json matcher `Task` would see, and a pricier model.
    const pre = {
      ...fixture('PreToolUse.json'),
      tool_name: 'Task',
      tool_input: { subagent_type: 'x', model: 'opus', prompt: 'p' },
    };
    for (const [event, body] of [
      ['PreToolUse', pre],
      ['SubagentStop', fixture('SubagentStop.json')],
      ['SessionStart', fixture('SessionStart.json')],
      ['SessionEnd', fixture('SessionEnd.parent.json')],
    ] as const) {
      const out = await run(sb, event, body, env);
      expect(out.failed, event).toBeNull();
      expect(out.answer, event).toBeNull();
    }
    expect(spool(sb)).toEqual([]);
  });

  it('the same Claude PreToolUse outside Grok still decides', async () => {
    const sb = sandbox();
    const out = await run(sb, 'PreToolUse', {
      session_id: 's',
      hook_event_name: 'PreToolUse',
      tool_name: 'Task',
      tool_use_id: 't1',
      cwd: sb.project,
      tool_input: { subagent_type: 'general-purpose', model: 'opus', prompt: 'p' },
    });
    expect(out.failed).toBeNull();
    expect(spool(sb).filter((r) => r.type === 'dispatch')).toHaveLength(1);
  });
});

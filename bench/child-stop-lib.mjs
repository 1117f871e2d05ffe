// What bench/child-stop.mjs and bench/child-stop-refused.mjs share: the summary figures, the Claude Code dispatch
// bundle's PreToolUse handler, and a child's own tool call as Claude Code's PreToolUse gives it (agent_id set).
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

/** The built Claude Code PreToolUse handler, called in process as the command hook calls it. */
export const claudePreToolUse = () =>
  createRequire(import.meta.url)(join(root, 'dist/hook-dispatch-claude.cjs')).adapter.handlers.PreToolUse;

/** A child's Bash call: `session` is the session transcript's path without `.jsonl` (its children under subagents/). */
export const childToolCall = (session, cwd, agent, sessionId = 'sess') => ({
  session_id: sessionId,
  transcript_path: `${session}.jsonl`,
  cwd,
  hook_event_name: 'PreToolUse',
  agent_id: agent,
  agent_type: 'general-purpose',
  tool_name: 'Bash',
  tool_input: { command: 'echo hi' },
});

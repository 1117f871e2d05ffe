/**
 * PreToolUse as Claude Code's dispatch hook reads it: a guard table over the fields the dispatch path reads, with
 * the verdicts of PreToolUsePayload (payloads.ts) on those fields, so the dispatch bundle never loads zod
 * (test/unit/adapters/claude/dispatch-payload.test.ts holds the two to each other). The type comes from the schema.
 */
import { guardSpec, payloadGuard } from '../../contracts/payload-guard.js';
import type { PreToolUsePayload } from './payloads.js';

/** The subagent tool: `Agent` on 2.1.328; `Task` on older builds and reportedly some later ones (#95769). */
export const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(['Agent', 'Task']);

/**
 * The fields the dispatch path reads and the check the schema makes of each: the test reads this table off
 * PreToolUsePayload picked to them. The type below allows no other field.
 */
export const DISPATCH_CHECKS = guardSpec({
  string: ['tool_name'],
  record: ['tool_input'],
  'optional string': ['session_id', 'transcript_path', 'cwd', 'agent_id', 'agent_type', 'tool_use_id'],
});
export const DISPATCH_FIELDS = Object.keys(DISPATCH_CHECKS) as readonly (keyof typeof DISPATCH_CHECKS)[];
export type DispatchPayload = Pick<PreToolUsePayload, keyof typeof DISPATCH_CHECKS>;

/** Throws PayloadError (the field, never its value) where the schema would reject one of DISPATCH_FIELDS. */
export const readPreToolUse = payloadGuard<DispatchPayload>(DISPATCH_CHECKS);

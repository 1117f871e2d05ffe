/**
 * preToolUse as Copilot CLI's dispatch hook reads it: a guard table over the fields the dispatch path reads, with
 * the verdicts of PreToolUsePayloadSchema (payloads.ts) on those fields, so the dispatch bundle never loads zod
 * (test/unit/adapters/copilot/dispatch-payload.test.ts holds the two to each other). The type comes from the schema.
 * Copilot CLI 1.0.102 fires preToolUse for every tool (no matcher in the camelCase format), so the tool name is looked
 * at first and everything else only for `task`.
 */
import { isRecord } from '../../contracts/record.js';
import { guardSpec, payloadGuard } from '../../contracts/payload-guard.js';
import type { PreToolUsePayload } from './payloads.js';

/** The subagent tool's name in camelCase payloads (a PascalCase hooks file names it `Agent`; tiergate ships camelCase). */
export const TASK_TOOL = 'task';

/**
 * The fields the dispatch path reads and the check the schema makes of each: the test reads this table off
 * PreToolUsePayload picked to them. The type below allows no other field.
 */
export const DISPATCH_CHECKS = guardSpec({
  string: ['sessionId', 'toolName'],
  record: ['toolArgs'],
  'optional string': ['cwd', 'agentId', 'parentAgentId'],
});
export const DISPATCH_FIELDS = Object.keys(DISPATCH_CHECKS) as readonly (keyof typeof DISPATCH_CHECKS)[];
export type DispatchPayload = Pick<PreToolUsePayload, keyof typeof DISPATCH_CHECKS>;

/** The tool the payload names, or null when it names none (read before anything else: most calls are not `task`). */
export function toolNameOf(raw: unknown): string | null {
  if (!isRecord(raw)) return null;
  return typeof raw.toolName === 'string' ? raw.toolName : null;
}

export const isTaskCall = (raw: unknown): boolean => toolNameOf(raw) === TASK_TOOL;

/** Throws PayloadError (the field, never its value) where the schema would reject one of DISPATCH_FIELDS. */
export const readPreToolUse = payloadGuard<DispatchPayload>(DISPATCH_CHECKS);

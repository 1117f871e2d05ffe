/**
 * The plugin's pre_tool_call stdin as Hermes' dispatch hook reads it: a guard table with the verdicts of
 * DispatchPayloadSchema (payloads.ts) on the fields the dispatch path reads, so the dispatch bundle never loads zod
 * (test/unit/adapters/hermes/dispatch-payload.test.ts holds the two to each other). The type comes from the schema.
 */
import { guardSpec, payloadGuard } from '../../contracts/payload-guard.js';
import type { DispatchPayload } from './payloads.js';

/** Hermes 0.19.0's subagent tool. */
export const DISPATCH_TOOL = 'delegate_task';

/** The fields the dispatch path reads and the check the schema makes of each. */
export const DISPATCH_CHECKS = guardSpec({
  string: ['hook_event_name', 'session_id', 'tool_name'],
  record: ['args'],
  'nullish string': ['tool_call_id', 'cwd', 'parent_model', 'delegation_model', 'delegation_endpoint'],
});
export const DISPATCH_FIELDS = Object.keys(DISPATCH_CHECKS) as readonly (keyof typeof DISPATCH_CHECKS)[];
export type HermesDispatchPayload = Pick<DispatchPayload, keyof typeof DISPATCH_CHECKS>;

/** Throws PayloadError (the field, never its value) where the schema would reject one of DISPATCH_FIELDS. */
export const readDispatch = payloadGuard<HermesDispatchPayload>(DISPATCH_CHECKS);

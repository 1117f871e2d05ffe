/** The pre_tool_call guard of Hermes' dispatch hook (dispatch-payload.ts) against DispatchPayloadSchema (payloads.ts). */
import { readDispatch, DISPATCH_CHECKS, DISPATCH_FIELDS } from '../../../../src/adapters/hermes/dispatch-payload.js';
import { DispatchPayloadSchema } from '../../../../src/adapters/hermes/payloads.js';
import { capturedPayloads, guardSuite } from '../../../support/payload-guard.js';

guardSuite('hermes pre_tool_call payload guard', {
  guard: readDispatch,
  schema: DispatchPayloadSchema,
  fields: DISPATCH_FIELDS,
  checks: DISPATCH_CHECKS,
  payloads: capturedPayloads('hermes', 'dispatch-stdin'),
});

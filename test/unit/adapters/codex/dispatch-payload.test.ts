/** The PreToolUse guard of Codex's dispatch hook (dispatch-payload.ts) against PreToolUsePayloadSchema (payloads.ts). */
import { DISPATCH_CHECKS, DISPATCH_FIELDS, readPreToolUse } from '../../../../src/adapters/codex/dispatch-payload.js';
import { PreToolUsePayloadSchema } from '../../../../src/adapters/codex/payloads.js';
import { capturedPayloads, guardSuite } from '../../../support/payload-guard.js';

guardSuite('codex PreToolUse payload guard', {
  guard: readPreToolUse,
  schema: PreToolUsePayloadSchema,
  fields: DISPATCH_FIELDS,
  checks: DISPATCH_CHECKS,
  payloads: capturedPayloads('codex', 'PreToolUse.'),
});

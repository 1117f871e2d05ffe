/** The PreToolUse guard of Grok Build's dispatch hook (dispatch-payload.ts) against PreToolUsePayloadSchema (payloads.ts). */
import { readPreToolUse, DISPATCH_CHECKS, DISPATCH_FIELDS } from '../../../../src/adapters/grok/dispatch-payload.js';
import { PreToolUsePayloadSchema } from '../../../../src/adapters/grok/payloads.js';
import { capturedPayloads, guardSuite } from '../../../support/payload-guard.js';

guardSuite('grok PreToolUse payload guard', {
  guard: readPreToolUse,
  schema: PreToolUsePayloadSchema,
  fields: DISPATCH_FIELDS,
  checks: DISPATCH_CHECKS,
  payloads: capturedPayloads('grok', 'PreToolUse'),
});

/** The BeforeTool guard of Gemini CLI's dispatch hook (dispatch-payload.ts) against BeforeToolPayloadSchema (payloads.ts). */
import { DISPATCH_CHECKS, DISPATCH_FIELDS, readBeforeTool } from '../../../../src/adapters/gemini/dispatch-payload.js';
import { BeforeToolPayloadSchema } from '../../../../src/adapters/gemini/payloads.js';
import { capturedPayloads, guardSuite } from '../../../support/payload-guard.js';

guardSuite('gemini BeforeTool payload guard', {
  guard: readBeforeTool,
  schema: BeforeToolPayloadSchema,
  fields: DISPATCH_FIELDS,
  checks: DISPATCH_CHECKS,
  payloads: capturedPayloads('gemini', 'BeforeTool.'),
});

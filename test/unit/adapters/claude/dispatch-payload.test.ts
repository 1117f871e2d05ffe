/** The PreToolUse guard of Claude Code's dispatch hook (dispatch-payload.ts) against PreToolUsePayload (payloads.ts). */
import { DISPATCH_CHECKS, DISPATCH_FIELDS, readPreToolUse } from '../../../../src/adapters/claude/dispatch-payload.js';
import { PreToolUsePayload } from '../../../../src/adapters/claude/payloads.js';
import { capturedPayloads, guardSuite } from '../../../support/payload-guard.js';

guardSuite('claude PreToolUse payload guard', {
  guard: readPreToolUse,
  schema: PreToolUsePayload,
  fields: DISPATCH_FIELDS,
  checks: DISPATCH_CHECKS,
  payloads: capturedPayloads('claude', 'PreToolUse.'),
});

/** The preToolUse guard of Copilot CLI's dispatch hook (dispatch-payload.ts) against PreToolUsePayloadSchema (payloads.ts). */
import { describe, expect, it } from 'vitest';
import {
  DISPATCH_CHECKS,
  DISPATCH_FIELDS,
  isTaskCall,
  readPreToolUse,
  toolNameOf,
} from '../../../../src/adapters/copilot/dispatch-payload.js';
import { PreToolUsePayloadSchema } from '../../../../src/adapters/copilot/payloads.js';
import { capturedPayloads, guardSuite } from '../../../support/payload-guard.js';

const payloads = capturedPayloads('copilot', 'preToolUse.');

guardSuite('copilot preToolUse payload guard', {
  guard: readPreToolUse,
  schema: PreToolUsePayloadSchema,
  fields: DISPATCH_FIELDS,
  checks: DISPATCH_CHECKS,
  payloads,
});

describe('copilot preToolUse tool name', () => {
  it('every captured dispatch is a task call', () => {
    for (const { payload } of payloads) expect(isTaskCall(payload)).toBe(true);
  });

  it('reads the tool name before anything else, and only a string', () => {
    expect(toolNameOf({ toolName: 'bash' })).toBe('bash');
    expect(isTaskCall({ toolName: 'bash', toolArgs: 1 })).toBe(false);
    for (const raw of [null, 1, 'task', [], { toolName: 1 }, {}]) expect(toolNameOf(raw)).toBeNull();
  });
});

/** The dispatch path's hand-written guard (dispatch-payload.ts) and the zod schema (payloads.ts) agree on every input. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTaskCall, readPreToolUse, toolNameOf } from '../../../../src/adapters/copilot/dispatch-payload.js';
import { PreToolUsePayloadSchema } from '../../../../src/adapters/copilot/payloads.js';
import { fixture } from './support.js';

const verdict = (fn: () => unknown): 'ok' | 'throws' => {
  try {
    fn();
    return 'ok';
  } catch {
    return 'throws';
  }
};

describe('copilot preToolUse payload guard', () => {
  const base = fixture('preToolUse.basic-task.json').payload;

  it('accepts every recorded preToolUse payload, as the schema does', () => {
    for (const name of [
      'preToolUse.basic-task.json',
      'preToolUse.model-arg-task.json',
      'preToolUse.builtin-nomodel-task.json',
      'preToolUse.rewrite-task.json',
    ]) {
      const p = fixture(name).payload;
      expect(readPreToolUse(p)).toEqual(PreToolUsePayloadSchema.parse(p));
      expect(isTaskCall(p)).toBe(true);
    }
  });

  it('reads the tool name before anything else, and only a string', () => {
    expect(toolNameOf({ toolName: 'bash' })).toBe('bash');
    expect(isTaskCall({ toolName: 'bash', toolArgs: 1 })).toBe(false);
    for (const raw of [null, 1, 'task', [], { toolName: 1 }, {}]) expect(toolNameOf(raw)).toBeNull();
  });

  it('throws exactly where the schema throws (mutated fields)', () => {
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.constant(null),
      fc.constant(undefined),
      fc.boolean(),
      fc.array(fc.string()),
      fc.dictionary(fc.string(), fc.string()),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(
          'sessionId',
          'toolName',
          'toolArgs',
          'timestamp',
          'cwd',
          'agentId',
          'agentType',
          'parentAgentId',
        ),
        value,
        (key, v) => {
          const p: Record<string, unknown> = { ...base, [key]: v };
          if (v === undefined) delete p[key];
          expect(verdict(() => readPreToolUse(p))).toBe(verdict(() => PreToolUsePayloadSchema.parse(p)));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('names the field, never the value, when it throws', () => {
    expect(() => readPreToolUse({ ...base, toolArgs: 'secret prompt text' })).toThrow(/toolArgs: expected object/);
    try {
      readPreToolUse({ ...base, toolArgs: 'secret prompt text' });
    } catch (err) {
      expect(String(err)).not.toContain('secret');
    }
  });
});

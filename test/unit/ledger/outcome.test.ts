import { describe, expect, it } from 'vitest';
import { extractEscalation, extractOutcome, OUTCOME_TAIL_BYTES, tailText } from '../../../src/observer/outcome.js';

describe('outcome tokens', () => {
  it('reads Result and Verified from a final answer (the fixture wording)', () => {
    expect(extractOutcome('Result: demo child finished\nVerified: yes')).toEqual({ result: 'demo', verified: 'yes', escalationFrom: null });
  });

  it('accepts markdown decorations and lower-cases, and the last occurrence wins', () => {
    const text = 'Result: partial\n...\n- **Result:** DONE\n> `Verified`: Tests\n';
    expect(extractOutcome(text)).toEqual({ result: 'done', verified: 'tests', escalationFrom: null });
  });

  it('does not match a label in the middle of a sentence', () => {
    expect(extractOutcome('The Result: was unclear and nothing Verified: here')).toEqual({ result: null, verified: null, escalationFrom: null });
  });

  it('looks only at the last 4 KiB', () => {
    const early = `Result: early\n${'x'.repeat(OUTCOME_TAIL_BYTES + 10)}\n`;
    expect(extractOutcome(early).result).toBeNull();
    expect(extractOutcome(`${early}Result: late`).result).toBe('late');
  });

  it('cuts the tail on a UTF-8 character boundary and never exceeds the cap', () => {
    const t = tailText('é'.repeat(5000));
    expect(Buffer.byteLength(t)).toBeLessThanOrEqual(OUTCOME_TAIL_BYTES);
    expect(t).toMatch(/^é+$/);
  });

  it('caps tokens at 32 characters', () => {
    expect(extractOutcome(`Result: ${'a'.repeat(60)}`).result).toHaveLength(32);
  });

  it('records an Escalation from <tier>: header as a tier token', () => {
    expect(extractEscalation('Escalation from cheap: the haiku run failed the tests.\nDo X.')).toBe('cheap');
    expect(extractOutcome('## Escalation from Standard:\nResult: done').escalationFrom).toBe('standard');
    expect(extractEscalation('No escalation here')).toBeNull();
    expect(extractEscalation(null)).toBeNull();
  });

  it('returns nulls for empty or non-string input', () => {
    expect(extractOutcome('')).toEqual({ result: null, verified: null, escalationFrom: null });
    expect(extractOutcome(undefined)).toEqual({ result: null, verified: null, escalationFrom: null });
  });
});

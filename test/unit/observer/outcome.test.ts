import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractEscalation, extractOutcome, OUTCOME_TAIL_BYTES, tailText } from '../../../src/observer/outcome.js';

describe('outcome tokens', () => {
  it('reads Result and Verified from a final answer (the fixture wording)', () => {
    expect(extractOutcome('Result: demo child finished\nVerified: yes')).toEqual({
      result: 'demo',
      verified: 'yes',
      escalationFrom: null,
    });
  });

  it('accepts markdown decorations and lower-cases, and the last occurrence wins', () => {
    const text = 'Result: partial\n...\n- **Result:** DONE\n> `Verified`: Tests\n';
    expect(extractOutcome(text)).toEqual({ result: 'done', verified: 'tests', escalationFrom: null });
  });

  it('does not match a label in the middle of a sentence', () => {
    expect(extractOutcome('The Result: was unclear and nothing Verified: here')).toEqual({
      result: null,
      verified: null,
      escalationFrom: null,
    });
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

  it('reads exactly what the case-insensitive patterns alone read (the lower-case pre-check never hides a label)', () => {
    // The patterns as outcome.ts has them, run without the pre-check.
    const TOKEN = '([A-Za-z0-9][A-Za-z0-9_.-]{0,31})';
    const DECOR = '[\\s>*_`#-]*';
    const run = (re: RegExp, text: string, last: boolean) => {
      let found: string | null = null;
      for (const m of text.matchAll(re)) {
        found = last ? m[1]!.toLowerCase().replace(/[.]+$/, '') : m[1]!.toLowerCase();
        if (!last) break;
      }
      return found || null;
    };
    const reference = (text: string) => {
      const tail = tailText(text);
      return {
        result: run(new RegExp(`^${DECOR}result${DECOR}:${DECOR}${TOKEN}`, 'gim'), tail, true),
        verified: run(new RegExp(`^${DECOR}verified${DECOR}:${DECOR}${TOKEN}`, 'gim'), tail, true),
        escalationFrom: run(new RegExp(`^${DECOR}escalation\\s+from\\s+${DECOR}${TOKEN}${DECOR}:`, 'gim'), tail, false),
      };
    };
    const label = fc.constantFrom(
      'Result',
      'RESULT',
      'rEsUlT',
      'Verified',
      'VERIFIED',
      'Escalation from',
      'ESCALATION  FROM',
      'escalation\tfrom',
      'resu\u0130t',
    );
    const decor = fc.constantFrom('', ' ', '**', '> ', '- ', '`', '## ');
    const token = fc.constantFrom(
      'done',
      'Cheap',
      'standard',
      'FAILED',
      'yes',
      'v1.2.',
      '\u00e9t\u00e9',
      '\u0130',
      '\u212A',
      '',
    );
    // A whole line the patterns may take (or narrowly miss).
    const line = fc
      .tuple(
        fc.constantFrom('\n', '\r\n', ''),
        decor,
        label,
        decor,
        fc.constantFrom(':', ' :', ''),
        decor,
        token,
        fc.constantFrom(':', ''),
      )
      .map((p) => p.join(''));
    const piece = fc.oneof(
      line,
      fc.constantFrom(
        'Result',
        'RESULT',
        'rEsUlT',
        'Verified',
        'VERIFIED',
        'Escalation from',
        'ESCALATION  FROM',
        'escalation\tfrom',
        'resu\u0130t',
        '\u212Aelvin',
      ),
      fc.constantFrom(':', ' : ', '**', '> ', '- ', '`', '\n', '\r\n', ' ', '.', 'x'),
      fc.constantFrom('done', 'Cheap', 'standard', 'FAILED', 'yes', 'n/a', '\u00e9t\u00e9', '\u0130', 'k'),
      fc.string({ maxLength: 4 }),
    );
    let found = 0;
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (parts) => {
        const text = parts.join('');
        const want = reference(text);
        if (want.result || want.verified || want.escalationFrom) found++;
        expect(extractOutcome(text)).toEqual(want);
        expect(extractEscalation(text)).toEqual(
          run(
            new RegExp(`^${DECOR}escalation\\s+from\\s+${DECOR}${TOKEN}${DECOR}:`, 'gim'),
            text.slice(0, OUTCOME_TAIL_BYTES),
            false,
          ),
        );
      }),
      { numRuns: 2000 },
    );
    // The texts must contain labels the patterns take, or the property says little.
    expect(found).toBeGreaterThan(100);
  });

  it('returns nulls for empty or non-string input', () => {
    expect(extractOutcome('')).toEqual({ result: null, verified: null, escalationFrom: null });
    expect(extractOutcome(undefined)).toEqual({ result: null, verified: null, escalationFrom: null });
  });
});

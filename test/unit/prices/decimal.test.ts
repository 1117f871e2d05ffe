import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDecimal,
  compareDecimal,
  formatUsd,
  multiplyDecimal,
  normaliseDecimal,
  numberToDecimal,
  parseDecimal,
  picoToUsd,
  shiftDecimal,
  yoctoToPico,
  yoctoUsd,
} from '../../../src/prices/decimal.js';
import { costOf } from '../../../src/prices/cost.js';
import type { PriceRow } from '../../../src/contracts/prices.js';

describe('decimal', () => {
  it('parses and formats canonically', () => {
    expect(normaliseDecimal('3.750')).toBe('3.75');
    expect(normaliseDecimal('007')).toBe('7');
    expect(normaliseDecimal('0.000')).toBe('0');
    expect(parseDecimal('1')).toBe(10n ** 18n);
    expect(() => parseDecimal('-1')).toThrow();
    expect(() => parseDecimal('1e-6')).toThrow();
    expect(() => parseDecimal('0.0000000000000000001')).toThrow();
  });

  it('accepts exactly what /^\\d+(\\.\\d+)?$/ accepts, and parses it exactly', () => {
    const pattern = /^(\d+)(?:\.(\d+))?$/;
    const reference = (s: string): bigint | 'rejected' => {
      const m = pattern.exec(s);
      if (!m) return 'rejected';
      const frac = (m[2] ?? '').replace(/0+$/, '');
      if (frac.length > 18) return 'rejected';
      return BigInt(m[1]!) * 10n ** 18n + BigInt(frac.padEnd(18, '0') || '0');
    };
    const ours = (s: string): bigint | 'rejected' => {
      try {
        return parseDecimal(s);
      } catch {
        return 'rejected';
      }
    };
    const chars = fc.constantFrom('0', '1', '5', '9', '.', '-', 'e', ' ', '\n', '\u0661', '+', '00');
    let accepted = 0;
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 24 }).map((a) => a.join('')),
        (s) => {
          const want = reference(s);
          if (want !== 'rejected') accepted++;
          expect(ours(s)).toBe(want);
        },
      ),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(100);
    for (const s of ['', '.', '1.', '.5', '1..2', '1.2.3', '1\n', ' 1']) expect(ours(s)).toBe('rejected');
  });

  it('moves the decimal point without float error (per token -> per 1M)', () => {
    expect(shiftDecimal('0.000005', 6)).toBe('5');
    expect(shiftDecimal('0.0000001875', 6)).toBe('0.1875');
    expect(shiftDecimal('0.00000128375', 6)).toBe('1.28375');
    expect(shiftDecimal('12.5', -6)).toBe('0.0000125');
    expect(shiftDecimal('3', 2)).toBe('300');
    // The float route is wrong here (0.09999999999999999, 0.5700000000000001); the string route is exact.
    expect(shiftDecimal('0.0000001', 6)).toBe('0.1');
    expect(Number('0.0000001') * 1e6).not.toBe(0.1);
    expect(shiftDecimal('0.00000057', 6)).toBe('0.57');
  });

  it('recovers the decimal a JSON number was written as', () => {
    expect(numberToDecimal(3e-7)).toBe('0.0000003');
    expect(numberToDecimal(1.5e-5)).toBe('0.000015');
    expect(numberToDecimal(0.435)).toBe('0.435');
    expect(numberToDecimal(1e21)).toBe('1000000000000000000000');
    expect(numberToDecimal(-1)).toBeNull();
    expect(numberToDecimal(Number.NaN)).toBeNull();
  });

  it('prints a plain number (no exponent) as the slow path would', () => {
    // The fast path returns String(n) as it is: it must be what shiftDecimal makes of it, for every kind of number.
    const samples = [0, -0, 1, 5, 0.8, 0.1, 0.5, 1 / 3, 2 ** 53, 123456789.125, 0.000001, 1e20, 99.99, 1e-6 * 7];
    for (const n of samples) expect(numberToDecimal(n)).toBe(shiftDecimal(String(n), 0));
    expect(numberToDecimal(0.8)).toBe('0.8');
    expect(numberToDecimal(-0)).toBe('0');
  });

  it('compares, adds and multiplies exactly', () => {
    expect(compareDecimal('0.1', '0.10')).toBe(0);
    expect(compareDecimal('0.09', '0.1')).toBe(-1);
    expect(compareDecimal('10', '9.999999')).toBe(1);
    expect(addDecimal('0.1', '0.2')).toBe('0.3');
    expect(multiplyDecimal('3', '1.25')).toBe('3.75');
    expect(multiplyDecimal('0.1', '0.1')).toBe('0.01');
  });

  it('turns token costs into pico-dollars, rounding half up once', () => {
    // 1 token at $3/1M = $0.000003 = 3,000,000 pico.
    expect(yoctoToPico(yoctoUsd('3', 1))).toBe(3_000_000n);
    // 1 token at $0.0000005/1M = 0.5 pico: rounds up to 1.
    expect(yoctoToPico(yoctoUsd('0.0000005', 1))).toBe(1n);
    expect(yoctoToPico(yoctoUsd('0.0000004', 1))).toBe(0n);
    expect(picoToUsd(38_250_000_000n)).toBe('0.03825');
    expect(formatUsd(38_250_000_000n, 4)).toBe('0.0383');
    expect(formatUsd(5n * 10n ** 12n, 2)).toBe('5.00');
  });

  it('sums a million small costs exactly (a float sum drifts)', () => {
    const luna: PriceRow = {
      id: 'gpt-6-luna',
      provider: 'openai',
      longContext: [],
      perRequestFee: null,
      reasoningRate: null,
      contextWindow: null,
      source: 'test',
      rates: { input: '0.1', output: '0.5', cacheRead: '0.01', cacheWrite5m: '0.125', cacheWrite1h: null },
    };
    // Each record: 7 input + 3 output tokens = 0.0000007 + 0.0000015 = $0.0000022.
    const one = costOf(
      { input: 7, output: 3, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
      luna,
    );
    expect(one.usd).toBe('0.0000022');
    let pico = 0n;
    let float = 0;
    for (let i = 0; i < 1_000_000; i++) {
      pico += one.picoUsd;
      float += Number(one.usd);
    }
    expect(picoToUsd(pico)).toBe('2.2');
    expect(float).not.toBe(2.2);
  });
});

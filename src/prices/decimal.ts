/**
 * Exact decimal arithmetic for prices. Rates are DecimalSchema strings in USD per 1,000,000 tokens; internally they are
 * BigInt fixed point with 18 decimals ("atto"), so no rate found in any catalog loses a digit and sums never drift.
 * A cost of `tokens` at rate `r` (USD/1M) is tokens × r / 1e6 USD; in units of 1e-24 USD that is tokens × r_atto, an
 * exact integer. Costs are rounded once, half up, to pico-USD (1e-12) at the end of a record.
 */

export const RATE_DECIMALS = 18;
const RATE_SCALE = 10n ** BigInt(RATE_DECIMALS);
/** 1e-24 USD units per pico-USD. */
const YOCTO_PER_PICO = 10n ** 12n;

// Digits checked and zeros trimmed by hand, not with patterns: this runs in every dispatch hook, and a process pays
// ~0.05 ms for each distinct pattern's first use (bench/README.md, "Session 4").
const isDigits = (s: string): boolean => {
  if (s === '') return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
};
const trimTrailingZeros = (s: string): string => {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 48) end--;
  return s.slice(0, end);
};

// A catalog has a few hundred distinct rate strings and a scan prices each request with the same few: parsing them once
// took a scan's pricing from half its store time to noise. Bounded: cleared when full.
const PARSED_MAX = 4096;
const parsed = new Map<string, bigint>();

/** A decimal string -> fixed point with 18 decimals. Throws on anything else (callers validate with zod first). */
export function parseDecimal(s: string): bigint {
  let v = parsed.get(s);
  if (v === undefined) {
    v = parseDecimalText(s);
    if (parsed.size >= PARSED_MAX) parsed.clear();
    parsed.set(s, v);
  }
  return v;
}

/** `<digits>` or `<digits>.<digits>` -> its two digit runs; throws on anything else (sign, exponent, blank, lone dot). */
function splitDecimal(s: string): [whole: string, fraction: string] {
  const dot = s.indexOf('.');
  const whole = dot < 0 ? s : s.slice(0, dot);
  const fraction = dot < 0 ? '' : s.slice(dot + 1);
  if (!isDigits(whole) || (dot >= 0 && !isDigits(fraction))) throw new Error(`not a decimal: ${JSON.stringify(s)}`);
  return [whole, fraction];
}

function parseDecimalText(s: string): bigint {
  const [whole, fraction] = splitDecimal(s);
  const frac = trimTrailingZeros(fraction);
  if (frac.length > RATE_DECIMALS) throw new Error(`more than ${RATE_DECIMALS} decimals: ${s}`);
  return BigInt(whole) * RATE_SCALE + BigInt(frac.padEnd(RATE_DECIMALS, '0') || '0');
}

/** Fixed point (18 decimals) -> canonical decimal string: no trailing zeros, no trailing dot, "0" for zero. */
export function formatFixed(v: bigint, decimals = RATE_DECIMALS): string {
  if (v < 0n) return `-${formatFixed(-v, decimals)}`;
  const scale = 10n ** BigInt(decimals);
  const int = v / scale;
  const frac = trimTrailingZeros((v % scale).toString().padStart(decimals, '0'));
  return frac ? `${int}.${frac}` : `${int}`;
}

/** Canonical form of a decimal string ("3.750" -> "3.75", "007" -> "7"). */
export function normaliseDecimal(s: string): string {
  return formatFixed(parseDecimal(s));
}

export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function addDecimal(a: string, b: string): string {
  return formatFixed(parseDecimal(a) + parseDecimal(b));
}

/** a × b exactly, then truncated to 18 decimals (only reachable with > 18 combined decimals). */
export function multiplyDecimal(a: string, b: string): string {
  return formatFixed((parseDecimal(a) * parseDecimal(b)) / RATE_SCALE);
}

/**
 * Move the decimal point: shiftDecimal("0.000003", 6) = "3" (USD per token -> per 1M tokens). Pure string work, so
 * "0.0000001875" becomes exactly "0.1875" (a float multiply would give 0.18749999999999997).
 */
export function shiftDecimal(s: string, places: number): string {
  const [whole, fraction] = splitDecimal(s);
  let digits = whole + fraction;
  let point = whole.length + places;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits = digits.padEnd(point, '0');
  const int = digits.slice(0, point).replace(/^0+/, '') || '0';
  const frac = trimTrailingZeros(digits.slice(point));
  return frac ? `${int}.${frac}` : int;
}

/**
 * A JSON number -> the decimal string its author wrote. JS prints the shortest string that round-trips, so 3e-7
 * gives "3e-7" -> "0.0000003" exactly. Returns null for negative, NaN or infinite values.
 */
export function numberToDecimal(n: number): string | null {
  if (!Number.isFinite(n) || n < 0) return null;
  const text = String(n).toLowerCase();
  // Without an exponent JS prints a finite non-negative number canonically already (no leading zeros but one, no
  // trailing zeros): no pattern run on a dispatch's `warnAt` (a pattern's first use costs a hook ~0.05 ms).
  if (!text.includes('e')) return text;
  const m = /^(\d+(?:\.\d+)?)(?:e([+-]?\d+))?$/.exec(text);
  if (!m) return null;
  return shiftDecimal(m[1]!, m[2] ? Number(m[2]) : 0);
}

/** Exact cost of `tokens` at `rate` USD/1M, in 1e-24 USD (an integer: see the header). */
export function yoctoUsd(rate: string, tokens: number | bigint): bigint {
  return parseDecimal(rate) * BigInt(tokens);
}

/** 1e-24 USD -> pico-USD, rounded half up (costs are never negative). */
export function yoctoToPico(yocto: bigint): bigint {
  return (yocto + YOCTO_PER_PICO / 2n) / YOCTO_PER_PICO;
}

/** pico-USD -> a USD decimal string with no trailing zeros ("0.03825"). */
export function picoToUsd(pico: bigint): string {
  return formatFixed(pico, 12);
}

/** pico-USD -> a display string rounded half up to `places` decimals, zero-padded ("$0.0383" style without the $). */
export function formatUsd(pico: bigint, places = 4): string {
  const drop = 10n ** BigInt(12 - places);
  const rounded = (pico + drop / 2n) / drop;
  const scale = 10n ** BigInt(places);
  const int = rounded / scale;
  if (places === 0) return `${int}`;
  return `${int}.${(rounded % scale).toString().padStart(places, '0')}`;
}

/** Orders two non-negative decimal strings exactly (no float parsing): -1, 0 or 1. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const [ai = '0', af = ''] = a.split('.');
  const [bi = '0', bf = ''] = b.split('.');
  const aInt = ai.replace(/^0+(?=\d)/, '');
  const bInt = bi.replace(/^0+(?=\d)/, '');
  if (aInt.length !== bInt.length) return aInt.length < bInt.length ? -1 : 1;
  if (aInt !== bInt) return aInt < bInt ? -1 : 1;
  const width = Math.max(af.length, bf.length);
  const aFrac = af.padEnd(width, '0');
  const bFrac = bf.padEnd(width, '0');
  if (aFrac === bFrac) return 0;
  return aFrac < bFrac ? -1 : 1;
}

/** Multiplies a decimal string by a small decimal factor given as [numerator, denominator] integers, exactly. */
export function scaleDecimal(value: string, num: bigint, den: bigint): string {
  const [i = '0', f = ''] = value.split('.');
  const scale = 12;
  const fixed = BigInt(i + f.padEnd(scale, '0').slice(0, scale)) * num;
  const q = fixed / den;
  const s = q.toString().padStart(scale + 1, '0');
  const whole = s.slice(0, -scale);
  const frac = s.slice(-scale).replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole;
}

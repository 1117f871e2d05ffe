// Interval estimates for same-run ratios. Plain .mjs with no imports: process benches time child processes and must not
// load tsx into the parent (bench/lib.mjs does).

/** Deterministic PRNG (mulberry32): a rerun over the same samples reports the same interval. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A copy of xs in random order (Fisher-Yates): interleaved rounds run their cases in a new order each round, so no case
 * always follows the same one (seen: a fixed order gave the first case, a bare start, a 4% slower median than its copy). */
export function shuffled(xs, next) {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export function quantile(xs, p) {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
}

/**
 * 95% bootstrap interval of median(samples) / median(base) where samples[i] and base[i] were taken in the same
 * interleaved round i: rounds are resampled as pairs, so a slow stretch of the machine moves both alike. A median over
 * N runs still moves by a few percent between runs of the same build; the interval says how far this run's ratio can be
 * trusted, the point estimate alone does not.
 */
export function pairedRatioInterval(samples, base, { iterations = 2000, seed = 1 } = {}) {
  if (samples.length !== base.length || samples.length === 0)
    throw new Error('paired samples must have equal, non-zero length');
  const next = rng(seed);
  const n = samples.length;
  const ratios = [];
  const a = new Array(n);
  const b = new Array(n);
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < n; i++) {
      const j = Math.floor(next() * n);
      a[i] = samples[j];
      b[i] = base[j];
    }
    ratios.push(quantile(a, 0.5) / quantile(b, 0.5));
  }
  return [quantile(ratios, 0.025), quantile(ratios, 0.975)];
}

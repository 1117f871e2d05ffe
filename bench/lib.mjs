// Shared helpers for bench scripts: TypeScript sources via tsx, medians, temp dirs.
import { register } from 'tsx/esm/api';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

register();

export const root = new URL('..', import.meta.url).pathname;
export const src = (p) => import(join(root, 'src', p));
// Run from source, a bench names the policy's slow path as a bundle's entry does (src/config/runtime.ts).
const { policySlowPath } = await src('config/policy-load.ts');
(await src('config/runtime.ts')).usePolicySlowPath(() => policySlowPath);

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function timeIt(fn, runs, warmup = 3) {
  for (let i = 0; i < warmup; i++) fn();
  const out = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    out.push(performance.now() - t);
  }
  return out;
}

export function benchDir(name) {
  return process.env.TIERGATE_BENCH_DIR ?? mkdtempSync(join(tmpdir(), `tg-bench-${name}-`));
}

export const fmt = (ms) => `${ms.toFixed(3)} ms`;

/**
 * Runs every case in turn, `runs` rounds after two warm-up rounds, so machine load hits each case alike; returns the
 * median wall time and the ratio to the case named `baseline`. A case is { cmd?, args, input, env?, check?(r) }.
 */
export function interleavedProcessTimes(cases, runs, env, baseline = 'bare node -e 0') {
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < runs + 2; i++) {
    for (const [name, c] of Object.entries(cases)) {
      const t = process.hrtime.bigint();
      const r = spawnSync(c.cmd ?? process.execPath, c.args, {
        input: c.input,
        env: { ...env, ...(c.env ?? {}) },
        encoding: 'utf8',
      });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== 0 || (c.check && !c.check(r)))
        throw new Error(`${name}: exit ${r.status}, stdout ${r.stdout}, stderr ${r.stderr}`);
      if (i >= 2) times[name].push(ms);
    }
  }
  const base = median(times[baseline]);
  return Object.fromEntries(
    Object.entries(times).map(([name, t]) => [
      name,
      { medianMs: +median(t).toFixed(1), ratio: +(median(t) / base).toFixed(3) },
    ]),
  );
}

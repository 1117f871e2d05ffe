// Shared helpers for bench scripts: TypeScript sources via tsx, medians, temp dirs.
import { register } from 'tsx/esm/api';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

register();

export const root = new URL('..', import.meta.url).pathname;
export const src = (p) => import(join(root, 'src', p));

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

/**
 * `node:path` for the hooks module bundle only (scripts/build.mjs aliases it): Claude Code's module runtime has no
 * Node built-ins (2.1.328, reference §10.2), yet src/io/paths.ts and the config loader build POSIX paths with join().
 */
/** The module runtime builds POSIX paths only. */
export const sep = '/';

export function join(...parts: string[]): string {
  const joined = parts.filter((p) => p !== '').join('/');
  const abs = joined.startsWith('/');
  const out: string[] = [];
  for (const seg of joined.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return (abs ? '/' : '') + out.join('/') || (abs ? '/' : '.');
}

export function dirname(p: string): string {
  const i = p.replace(/\/+$/, '').lastIndexOf('/');
  return i <= 0 ? (p.startsWith('/') ? '/' : '.') : p.slice(0, i);
}

export function basename(p: string): string {
  const s = p.replace(/\/+$/, '');
  return s.slice(s.lastIndexOf('/') + 1);
}

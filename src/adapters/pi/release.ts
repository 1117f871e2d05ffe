/**
 * Which pi is on PATH, by the package its `pi` command belongs to. pi has shipped under two names: the old
 * `@mariozechner/pi-coding-agent` stops at 0.73.1 (reported deprecated) and pi moved to `@earendil-works/pi-coding-agent`
 * (1.6.0), which needs Node >= 22.19 (it exits at load on an older Node: seen). tiergate's extension works in both.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import type { Env } from '../../contracts/env.js';

export const OLD_PACKAGE = '@mariozechner/pi-coding-agent';
export const NEW_PACKAGE = '@earendil-works/pi-coding-agent';
/** `engines.node` of @earendil-works/pi-coding-agent 1.6.0. */
export const NEW_PACKAGE_NODE = [22, 19] as const;

export type PiRelease = { bin: string; name: string; version: string; engine: string | null };

/** The package owning the first `pi` on PATH (its package.json, at most 6 folders up from the real file), or null. */
export function piRelease(env: Env): PiRelease | null {
  for (const d of (env.PATH ?? '').split(delimiter)) {
    if (d === '' || !existsSync(join(d, 'pi'))) continue;
    let dir: string;
    try {
      dir = dirname(realpathSync(join(d, 'pi')));
    } catch {
      return null;
    }
    for (let i = 0; i < 6; i++, dir = dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, any>;
        if (pkg.name === OLD_PACKAGE || pkg.name === NEW_PACKAGE)
          return {
            bin: join(d, 'pi'),
            name: pkg.name,
            version: String(pkg.version ?? '?'),
            engine: typeof pkg.engines?.node === 'string' ? pkg.engines.node : null,
          };
      } catch {
        // no package.json here: one folder up
      }
    }
    return null;
  }
  return null;
}

/** Whether a Node version (`process.versions.node`) meets >= major.minor. */
export function nodeAtLeast(version: string, [major, minor]: readonly [number, number]): boolean {
  const [a = 0, b = 0] = version.split('.').map(Number);
  return a > major || (a === major && b >= minor);
}

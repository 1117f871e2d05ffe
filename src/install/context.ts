/** Finds the tiergate package an install points the harnesses at. */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Env } from '../io/paths.js';
import type { InstallContext } from './plan.js';

/** The nearest directory above `from` holding tiergate's package.json (dist/cli.js -> the package; src/ -> the repo). */
export function findPackageRoot(from: string = fileURLToPath(import.meta.url)): string | null {
  let dir = dirname(from);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'tiergate') return dir;
      } catch {
        /* keep looking */
      }
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

export function packageVersion(pkgRoot: string): string {
  try {
    return (JSON.parse(readFileSync(join(pkgRoot, 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export function makeContext(env: Env = process.env, pkgRoot?: string): InstallContext {
  const root = pkgRoot ?? findPackageRoot();
  if (!root) throw new Error('cannot find the tiergate package directory');
  return { env, pkgRoot: root, version: packageVersion(root), home: env.HOME || homedir() };
}

/** `${XDG_CONFIG_HOME:-~/.config}` */
export function xdgConfigHome(ctx: InstallContext): string {
  return ctx.env.XDG_CONFIG_HOME || join(ctx.home, '.config');
}

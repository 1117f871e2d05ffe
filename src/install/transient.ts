/**
 * Where an install points the harnesses: the package directory this tiergate runs from. From a temporary directory,
 * npx's cache or a git checkout (a clone tried out, a worktree) the harnesses lose tiergate when it is deleted or
 * moved, or change with whatever is checked out; a package installed from its tarball (npm pack) stays put. (`npm
 * install -g .` does not: npm links the folder itself.)
 */
import { existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import type { Env } from '../io/paths.js';

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Why the package directory is a transient place to install from, or null when it is not. */
export function transientCheckout(pkgRoot: string, env: Env): string | null {
  const root = real(pkgRoot);
  const under = (dir: string) => root.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
  if (root.split(sep).includes('_npx')) return "npx's cache, which npm clears";
  const temps = [
    ...new Set([tmpdir(), env.TMPDIR, '/tmp', '/var/tmp'].filter((d): d is string => Boolean(d)).map(real)),
  ];
  const temp = temps.find(under);
  if (temp) return `a temporary directory (under ${temp})`;
  if (!root.split(sep).includes('node_modules') && existsSync(join(root, '.git'))) return 'a git checkout';
  return null;
}

export function transientWarning(pkgRoot: string, env: Env): string | null {
  const why = transientCheckout(pkgRoot, env);
  if (!why) return null;
  return (
    `warning: the harnesses will load tiergate from ${pkgRoot}, ${why}: if it is moved, deleted or checked out` +
    ' at another version, they lose tiergate or run that. Install a copy that stays put and run tiergate install from' +
    ' it: in the checkout, npm pack, then npm install -g ./tiergate-<version>.tgz (npm install -g . links the' +
    ' checkout itself; npm install -g tiergate once tiergate is published).'
  );
}

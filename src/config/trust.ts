/** Whether a project root is one the user trusts to loosen the policy (`trustedProjects` in the user file). */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/** Resolved and, where it exists, with symlinks followed: a root reached through a link is still the same directory. */
function canonical(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync.native(abs);
  } catch {
    return abs;
  }
}

/**
 * Exactly the listed directory (the one holding `.tiergate.json`), not its subdirectories: a subdirectory's own file
 * (a vendored or nested repository) is another project's.
 */
export function isTrustedProject(root: string, trusted: readonly string[]): boolean {
  if (trusted.length === 0) return false;
  const here = canonical(root);
  return trusted.some((t) => canonical(t) === here);
}

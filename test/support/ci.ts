/**
 * What a test does when something it drives from outside the package (a pinned harness binary, Debian's Chromium)
 * is missing. Outside CI it skips, with the reason printed. Under CI it fails: a registry outage or a failed apt
 * install must not turn the real-binary suites into a green run of skips.
 */

/** CI as the common runners set it: any value but empty, "false" or "0". */
export function underCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CI;
  return Boolean(v) && v !== 'false' && v !== '0';
}

/** Prints why `what` is missing; under CI throws instead, which fails the file (or the test) that asked. */
export function missing(what: string, reason: string, env: NodeJS.ProcessEnv = process.env): void {
  if (underCi(env))
    throw new Error(
      `${what} unavailable under CI=${env.CI}: ${reason} (a missing binary fails CI; it is never skipped)`,
    );
  console.warn(`[skip] ${what} unavailable: ${reason}; its tests are skipped (under CI=true this fails)`);
}

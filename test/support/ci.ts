/**
 * What a test does when something it drives from outside the package (a pinned harness binary, Debian's Chromium,
 * PostgreSQL) is missing. Outside CI it skips, with the reason printed. Under CI it fails: a registry outage or a
 * failed apt install must not turn the real-binary suites into a green run of skips.
 *
 * Strict mode is TIERGATE_STRICT=1, which .ci/run sets unconditionally: a runner (or a shell) that already holds
 * CI=0 or CI=false must not turn it off, as `CI="${CI:-true}"` once did. CI as the common runners set it (any value
 * but empty, "false" or "0") is strict too, for a runner that calls npm test without .ci/run.
 */

/** TIERGATE_STRICT=1, or CI set to anything but empty, "false" or "0". */
export function underCi(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.TIERGATE_STRICT === '1') return true;
  const v = env.CI;
  return Boolean(v) && v !== 'false' && v !== '0';
}

/** Which setting made the run strict, for the message. */
const strictBy = (env: NodeJS.ProcessEnv) => (env.TIERGATE_STRICT === '1' ? 'TIERGATE_STRICT=1' : `CI=${env.CI}`);

/** Prints why `what` is missing; under CI throws instead, which fails the file (or the test) that asked. */
export function missing(what: string, reason: string, env: NodeJS.ProcessEnv = process.env): void {
  if (underCi(env))
    throw new Error(
      `${what} unavailable under ${strictBy(env)}: ${reason} (a missing binary fails CI; it is never skipped)`,
    );
  console.warn(
    `[skip] ${what} unavailable: ${reason}; its tests are skipped (under TIERGATE_STRICT=1 or CI=true this fails)`,
  );
}

#!/usr/bin/env node
/**
 * The detached background refresh (`node dist/refresh.js`), started by triggerRefresh(). No output: results go to the
 * status file, problems to the diagnostic log. A watchdog ends the process even if a socket refuses to close.
 */
import { diagnose, errorText } from '../io/diagnostics.js';
import { loadRefreshConfig } from '../refresh/config.js';
import { runRefresh } from '../refresh/run.js';
import { configFromEnv, FORCE_ENV, LOCK_ENV } from '../refresh/settings.js';

const WATCHDOG_MS = 5 * 60_000;

const watchdog = setTimeout(() => {
  diagnose('error', 'prices.refresh', `watchdog: still running after ${WATCHDOG_MS} ms, exiting`);
  process.exit(3);
}, WATCHDOG_MS);
watchdog.unref();

async function main(): Promise<number> {
  const env = process.env;
  let config = configFromEnv(env);
  if (!config) {
    const loaded = loadRefreshConfig(env);
    for (const d of loaded.diagnostics) diagnose('warn', 'prices.refresh.config', d, {}, env);
    config = loaded.config;
  }
  const report = await runRefresh({
    env,
    config,
    force: env[FORCE_ENV] === '1',
    lockNonce: env[LOCK_ENV] || undefined,
  });
  if (report.result !== 'done') diagnose('info', 'prices.refresh', `not run: ${report.why}`, {}, env);
  return report.result === 'done' && report.sources.some((s) => s.result === 'failed') ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    diagnose('error', 'prices.refresh', errorText(err));
    process.exit(2);
  },
);

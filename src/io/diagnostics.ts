/**
 * The bounded diagnostic log. Fail open, never fail silent: every swallowed error lands here as one JSON line.
 * Logging itself must never throw into a hook.
 */
import { appendBounded } from './files.js';
import { paths, type Env } from './paths.js';

export const DIAGNOSTICS_MAX_BYTES = 1024 * 1024;
const MAX_FIELD = 2000;

export type DiagnosticLevel = 'error' | 'warn' | 'info';

/** At most this many lines per process go to the fallback: a broken data dir must not flood a harness's stderr. */
const FALLBACK_MAX_LINES = 16;
let fallback: ((line: string) => void) | null = null;
let fallbackLines = 0;

/**
 * Where a line goes when the log itself cannot be written (read-only or missing data dir): a command hook sets its own
 * stderr (hook-runner/core.ts hookMain), which every harness takes without changing the decision on exit 0. Unset by
 * default: an in-process host's (OpenCode, pi) stderr is its terminal UI.
 */
export function setDiagnosticFallback(fn: ((line: string) => void) | null): void {
  fallback = fn;
  fallbackLines = 0;
}

export function diagnose(
  level: DiagnosticLevel,
  where: string,
  message: string,
  extra: Record<string, unknown> = {},
  env: Env = process.env,
): void {
  let line = '';
  try {
    const rec = { t: new Date().toISOString(), level, where, message: message.slice(0, MAX_FIELD), ...extra };
    line = JSON.stringify(rec);
    if (line.length > 8 * MAX_FIELD)
      line = JSON.stringify({ t: rec.t, level, where, message: rec.message, truncated: true });
    appendBounded(paths(env).diagnostics, `${line}\n`, DIAGNOSTICS_MAX_BYTES);
  } catch {
    // The log cannot be written: the fallback, if the process has one; the hook must still answer either way.
    try {
      if (fallback && line && fallbackLines++ < FALLBACK_MAX_LINES) fallback(`tiergate: ${line}\n`);
    } catch {
      // Nowhere left to report to.
    }
  }
}

export { errorText } from './error-text.js';

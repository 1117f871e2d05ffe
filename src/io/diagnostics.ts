/**
 * The bounded diagnostic log. Fail open, never fail silent: every swallowed error lands here as one JSON line.
 * Logging itself must never throw into a hook.
 */
import { appendBounded } from './files.js';
import { paths, type Env } from './paths.js';

export const DIAGNOSTICS_MAX_BYTES = 1024 * 1024;
const MAX_FIELD = 2000;

export type DiagnosticLevel = 'error' | 'warn' | 'info';

export function diagnose(
  level: DiagnosticLevel,
  where: string,
  message: string,
  extra: Record<string, unknown> = {},
  env: Env = process.env,
): void {
  try {
    const rec = { t: new Date().toISOString(), level, where, message: message.slice(0, MAX_FIELD), ...extra };
    let line = JSON.stringify(rec);
    if (line.length > 8 * MAX_FIELD) line = JSON.stringify({ t: rec.t, level, where, message: rec.message, truncated: true });
    appendBounded(paths(env).diagnostics, `${line}\n`, DIAGNOSTICS_MAX_BYTES);
  } catch {
    // Nowhere left to report to; the hook must still answer.
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

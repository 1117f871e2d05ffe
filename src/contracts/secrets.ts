/**
 * Passwords never leave the user's own policy file: every copy of the policy tiergate writes (the effective file, the
 * Claude module's policy hand-off) or prints (`config check --json`) goes through withoutSecrets first. The team URL
 * (`postgres://user:password@…`, or `?password=…`) is the one place a policy may hold one today; any URL-shaped string
 * and any key named like a secret is treated the same, so a field added later is covered too. Dependency-free: the
 * slow-path policy bundle and the SessionStart hook load it.
 */

export const REDACTED = '***';

/** Keys whose value is a secret whatever it holds. */
const SECRET_KEY = /password|passwd|secret|credential|api_?key|^token$|access_?token|auth_?token/i;
/** `scheme://user:password@`: the password part (up to the last @ before the host), anywhere in a text. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*):[^\s/?#]*@/gi;
/** Query parameters libpq (and most URL schemes) read a password from. */
const SECRET_PARAM = /([?&](?:ssl)?password=)[^&#]*/gi;

/** A URL (or any text holding one) with the password of its user part and of its query taken out. */
export function redactUrlText(text: string): string {
  return text.replace(USERINFO, `$1:${REDACTED}@`).replace(SECRET_PARAM, `$1${REDACTED}`);
}

/** A copy of `value` (a policy, or any JSON value) safe to write or print: no password, wherever it was. */
export function withoutSecrets<T>(value: T): T {
  return strip(value, '') as T;
}

function strip(v: unknown, key: string): unknown {
  if (typeof v === 'string') return SECRET_KEY.test(key) && v !== '' ? REDACTED : redactUrlText(v);
  if (Array.isArray(v)) return v.map((x) => strip(x, ''));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = strip(x, k);
    return out;
  }
  return v;
}

/**
 * "This harness was seen running another model than the one tiergate's correction set": one small file per harness in
 * the data dir, written by the observer pass (observer/enforcement.ts) and read by the dispatch path when the policy
 * says `onIgnoredRewrite: "deny"` (runtime/dispatch.ts). The dispatch path never opens SQLite; this is its one bounded
 * read, and only with that switch on.
 *
 * The file stays until the user deletes it (doctor names it): a harness that ignored a rewrite once is not trusted
 * again on its own say, since with the switch on it is no longer given rewrites that could show otherwise.
 */
import { existsSync } from 'node:fs';
import type { Policy } from '../contracts/config.js';
import type { Harness } from '../contracts/harness.js';
import type { DispatchObservation } from '../contracts/observation.js';
import { diagnose, errorText } from '../io/diagnostics.js';
import { paths, type Env, joinPath } from '../io/paths.js';
import { readTextCapped, RefusedFile } from '../io/read-capped.js';

export const REWRITE_MARKER_FORMAT = 'tiergate-rewrite-ignored/1';
/** A marker is a few hundred bytes; anything past this is not ours. */
export const MAX_MARKER_BYTES = 4096;

export type RewriteMarker = {
  format: typeof REWRITE_MARKER_FORMAT;
  harness: Harness;
  firstSeenAt: number;
  lastSeenAt: number;
  /** Corrections seen not honoured, over every observer pass that wrote this file. */
  ignored: number;
  /** The latest one: what tiergate decided, what the dispatch asked for, what served the child. Model names only. */
  last: { decided: string | null; requested: string | null; served: string | null; at: number };
};

export const enforcementDir = (env: Env): string => joinPath(paths(env).data, 'enforcement');

export const rewriteMarkerPath = (env: Env, harness: Harness): string =>
  joinPath(enforcementDir(env), `${harness}.rewrite-ignored.json`);

function parseMarker(text: string, harness: Harness): RewriteMarker | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const m = v as Partial<RewriteMarker> | null;
  if (!m || typeof m !== 'object' || m.format !== REWRITE_MARKER_FORMAT || m.harness !== harness) return null;
  if (typeof m.ignored !== 'number' || typeof m.firstSeenAt !== 'number' || typeof m.lastSeenAt !== 'number')
    return null;
  if (!m.last || typeof m.last !== 'object') return null;
  return m as RewriteMarker;
}

/**
 * The marker, or null when there is none. Read as every data-dir file is (io/read-capped.ts, `follow: false`): never
 * through a symlink, never waiting on a FIFO, only a regular file, at most MAX_MARKER_BYTES. A marker that is there
 * but unreadable or not ours counts as none (fail open: the dispatch is corrected as without the switch) and leaves a
 * diagnostic.
 */
export function readRewriteMarker(env: Env, harness: Harness): RewriteMarker | null {
  const file = rewriteMarkerPath(env, harness);
  // Absent is the usual case, and asking is cheaper than a failed open's errno exception.
  if (!existsSync(file)) return null;
  try {
    const marker = parseMarker(readTextCapped(file, MAX_MARKER_BYTES, { follow: false }), harness);
    if (!marker) throw new Error('not a tiergate marker');
    return marker;
  } catch (err) {
    const why = err instanceof RefusedFile ? `not a regular file (${err.kind})` : errorText(err);
    diagnose('warn', 'enforcement:marker', `unreadable, ignored: ${why}`, { file }, env);
    return null;
  }
}

/**
 * The observation the engine decides on. With `onIgnoredRewrite: "deny"` and this harness's marker present, the
 * harness is treated as one that cannot rewrite: an over-ceiling dispatch is denied with a retry that names the legal
 * choice (routing-engine/decide.ts correctOrDeny), and no default tier is written (the child inherits the parent, as
 * the harness would run it anyway). The engine stays pure: only the capability handed to it changes. The marker is
 * read only with that switch on, so the default policy costs the dispatch path nothing.
 */
export function withRewritePolicy(obs: DispatchObservation, policy: Policy, env: Env): DispatchObservation {
  if (policy.onIgnoredRewrite !== 'deny' || !obs.capability.canRewrite) return obs;
  if (!readRewriteMarker(env, obs.harness)) return obs;
  return { ...obs, capability: { ...obs.capability, canRewrite: false, rewriteField: null } };
}

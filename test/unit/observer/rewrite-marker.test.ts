/**
 * The "rewrite ignored" marker as the dispatch path reads it (src/observer/rewrite-marker.ts), and the capability change
 * it makes under `onIgnoredRewrite: "deny"`, through routeDispatch (the path every adapter takes).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';
import type { DispatchObservation } from '../../../src/contracts/observation.js';
import { paths } from '../../../src/io/paths.js';
import { clearRuntimeCache } from '../../../src/config/runtime.js';
import { routeDispatch } from '../../../src/runtime/dispatch.js';
import {
  MAX_MARKER_BYTES,
  readRewriteMarker,
  REWRITE_MARKER_FORMAT,
  rewriteMarkerPath,
  withRewritePolicy,
  type RewriteMarker,
} from '../../../src/observer/rewrite-marker.js';
import { tempHome } from './helpers.js';
import { claudeDispatchObservation } from '../support/claude-dispatch.js';

const marker = (over: Partial<RewriteMarker> = {}): RewriteMarker => ({
  format: REWRITE_MARKER_FORMAT,
  harness: 'claude',
  firstSeenAt: 1,
  lastSeenAt: 2,
  ignored: 1,
  last: { decided: 'haiku', requested: 'opus', served: 'claude-opus-5-5', at: 2 },
  ...over,
});

function put(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const log = (env: Record<string, string>) => {
  try {
    return readFileSync(paths(env).diagnostics, 'utf8');
  } catch {
    return '';
  }
};

/** A haiku parent asking for opus: over the ceiling; the legal choice within it is haiku. */
const obs = (over: Partial<DispatchObservation> = {}): DispatchObservation =>
  claudeDispatchObservation({
    sessionId: 'S',
    parentModel: 'claude-haiku-5-5',
    parentModelSource: 't',
    toolInput: { subagent_type: 'general-purpose', model: 'opus', prompt: 'p' },
    cwd: null,
    at: 1,
    ...over,
  });

describe('readRewriteMarker', () => {
  it('none: null, and no diagnostic', () => {
    const { env } = tempHome();
    expect(readRewriteMarker(env, 'claude')).toBeNull();
    expect(log(env)).toBe('');
  });

  it('reads the marker of its harness only', () => {
    const { env } = tempHome();
    put(rewriteMarkerPath(env, 'claude'), JSON.stringify(marker()));
    expect(readRewriteMarker(env, 'claude')).toEqual(marker());
    expect(readRewriteMarker(env, 'codex')).toBeNull();
    // A codex-named file holding claude's marker is not codex's.
    put(rewriteMarkerPath(env, 'codex'), JSON.stringify(marker()));
    expect(readRewriteMarker(env, 'codex')).toBeNull();
  });

  it.each([
    ['not JSON', '{nope'],
    ['another format', JSON.stringify({ ...marker(), format: 'other/1' })],
    ['a count that is not a number', JSON.stringify({ ...marker(), ignored: 'many' })],
    ['larger than the cap', JSON.stringify({ ...marker(), pad: 'x'.repeat(MAX_MARKER_BYTES) })],
  ])('%s: counts as none, with a diagnostic', (_, text) => {
    const { env } = tempHome();
    put(rewriteMarkerPath(env, 'claude'), text);
    expect(readRewriteMarker(env, 'claude')).toBeNull();
    expect(log(env)).toMatch(/enforcement:marker.*unreadable, ignored/);
  });

  it('never follows a symlink in its place, even to a valid marker', () => {
    const { dir, env } = tempHome();
    const real = join(dir, 'elsewhere.json');
    writeFileSync(real, JSON.stringify(marker()));
    mkdirSync(dirname(rewriteMarkerPath(env, 'claude')), { recursive: true });
    symlinkSync(real, rewriteMarkerPath(env, 'claude'));
    expect(readRewriteMarker(env, 'claude')).toBeNull();
    expect(log(env)).toMatch(/enforcement:marker/);
  });

  it('a FIFO in its place is refused at once, not waited on', () => {
    const { env } = tempHome();
    const file = rewriteMarkerPath(env, 'claude');
    mkdirSync(dirname(file), { recursive: true });
    execFileSync('mkfifo', [file]);
    const t0 = Date.now();
    expect(readRewriteMarker(env, 'claude')).toBeNull();
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(log(env)).toMatch(/not a regular file/);
  });
});

describe('onIgnoredRewrite', () => {
  it('withRewritePolicy: only "deny" with the harness\'s marker present takes the rewrite away', () => {
    const { env } = tempHome();
    const deny = { ...DEFAULT_POLICY, onIgnoredRewrite: 'deny' as const };
    expect(withRewritePolicy(obs(), deny, env)).toEqual(obs());
    put(rewriteMarkerPath(env, 'claude'), JSON.stringify(marker()));
    expect(withRewritePolicy(obs(), DEFAULT_POLICY, env)).toEqual(obs());
    expect(withRewritePolicy(obs(), deny, env).capability).toMatchObject({
      canRewrite: false,
      rewriteField: null,
      canDeny: true,
    });
    // Another harness's marker does not count.
    const codex = obs({ harness: 'codex', capability: { ...obs().capability, legalValues: null } });
    expect(withRewritePolicy(codex, deny, env)).toEqual(codex);
  });

  it('the default is "correct"', () => {
    expect(DEFAULT_POLICY.onIgnoredRewrite).toBe('correct');
  });

  it('routeDispatch: corrected before the marker, denied with a retry after it, and corrected again with "correct"', () => {
    const { env } = tempHome();
    const config = (v: string) => {
      put(paths(env).config, JSON.stringify({ onIgnoredRewrite: v }));
      clearRuntimeCache();
    };
    config('deny');
    expect(routeDispatch(obs(), env)).toMatchObject({ action: 'correct', value: 'haiku' });
    put(rewriteMarkerPath(env, 'claude'), JSON.stringify(marker()));
    const denied = routeDispatch(obs(), env);
    expect(denied).toMatchObject({ action: 'deny', reason: 'over-ceiling-denied' });
    expect(denied.action === 'deny' && denied.message).toMatch(/haiku/);
    config('correct');
    expect(routeDispatch(obs(), env)).toMatchObject({ action: 'correct', value: 'haiku' });
  });
});

/**
 * The hook bundles' node:os (scripts/build.mjs aliases it to src/hook-runner/lazy-os.ts): the same answers as the
 * module, which it loads at the first call.
 */
import * as os from 'node:os';
import { describe, expect, it } from 'vitest';
import { homedir, tmpdir, userInfo } from '../../../src/hook-runner/lazy-os.js';

describe('lazy-os', () => {
  it('answers as node:os does', () => {
    expect(homedir()).toBe(os.homedir());
    expect(tmpdir()).toBe(os.tmpdir());
    expect(userInfo().username).toBe(os.userInfo().username);
  });
});

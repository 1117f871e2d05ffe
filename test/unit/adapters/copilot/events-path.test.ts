/**
 * The session file's path from a payload's session id, and Copilot's home: string tests in place of the regular
 * expressions they stand for (a Node 20 hook compiles each RegExp on its first run), checked against them here.
 */
import { describe, expect, it } from 'vitest';
import { copilotHome, eventsPath, isSafeId } from '../../../../src/adapters/copilot/events.js';
import { withoutTrailingSlashes } from '../../../../src/io/text.js';

const parts = ['a', 'Z', '0', '9', '.', '..', '_', '-', '/', ' ', 'é', '\u0000', 'x'.repeat(60), '\n', ':'];
function* corpus(n: number): Generator<string> {
  let seed = 11;
  const rand = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % k;
  for (let i = 0; i < n; i++) {
    let s = '';
    for (let k = rand(7); k > 0; k--) s += parts[rand(parts.length)];
    yield s;
  }
}

describe('Copilot session paths', () => {
  it('a session id is one safe path component, as /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/ says', () => {
    let safe = 0;
    for (const id of corpus(20000)) {
      const want = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id);
      expect([id, isSafeId(id)]).toEqual([id, want]);
      if (want) safe++;
    }
    expect(safe).toBeGreaterThan(100);
    expect(isSafeId('a'.repeat(128))).toBe(true);
    expect(isSafeId('a'.repeat(129))).toBe(false);
    expect(eventsPath('/h/.copilot', '0e0c5f3e-1f5b-4c1a-9d55-2b4f7f6a1c11')).toBe(
      '/h/.copilot/session-state/0e0c5f3e-1f5b-4c1a-9d55-2b4f7f6a1c11/events.jsonl',
    );
    expect(eventsPath('/h/.copilot', 'a..b')).toBeNull();
    expect(eventsPath('/h/.copilot', '../x')).toBeNull();
  });

  it('trailing slashes go as /\\/+$/ takes them', () => {
    for (const s of corpus(5000)) expect([s, withoutTrailingSlashes(s)]).toEqual([s, s.replace(/\/+$/, '')]);
    expect(copilotHome({ COPILOT_HOME: '///' })).toBe('/');
    expect(copilotHome({ HOME: '/h//' })).toBe('/h/.copilot');
    expect(copilotHome({})).toBeNull();
  });
});

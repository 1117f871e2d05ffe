/**
 * The Hermes plugin's own Python tests (test/python, stdlib unittest: no Hermes needed), run from `npm test` with the
 * venv's Python when .ci/run made it, else python3 (the plugin's floor is Python 3.11, as Hermes 0.19.0's).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../../..');
const venv = join(root, '.cache', 'hermes-venv', 'bin', 'python');
const python = existsSync(venv) ? venv : 'python3';

describe('the Hermes plugin (Python)', () => {
  it('passes its unittest suite', () => {
    let out = '';
    let code = 0;
    try {
      out = execFileSync(python, ['-B', '-m', 'unittest', 'discover', '-s', join(root, 'test', 'python'), '-v'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH, HOME: process.env.HOME, PYTHONDONTWRITEBYTECODE: '1' },
        timeout: 60_000,
      });
    } catch (err) {
      const e = err as { status?: number; stderr?: string };
      code = e.status ?? 1;
      out = e.stderr ?? '';
    }
    expect(code, out.slice(-3000)).toBe(0);
  });
});

/**
 * Every command that starts dist/hook.cjs, in every manifest tiergate ships and in what its installer writes, starts
 * node the same way (HOOK_NODE_FLAGS, src/hook-runner/bundles.ts): the bench times exactly that command.
 * And the flag keeps the hook working when its plugin directory is reached through a symlink (as a linked or cached
 * plugin install can be): the bundles beside hook.cjs are found through the link.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOK_NODE_FLAGS } from '../../../src/hook-runner/bundles.js';
import { hookCommand } from '../../../src/adapters/cursor/install.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');

function commands(value: unknown): string[] {
  if (typeof value === 'string') return value.includes('hook.cjs') ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(commands);
  if (value && typeof value === 'object') return Object.values(value).flatMap(commands);
  return [];
}

describe('the hook command', () => {
  for (const manifest of ['hooks.json', 'hooks-codex.json', 'hooks-cursor.json']) {
    it(`${manifest}: every hook starts node ${HOOK_NODE_FLAGS}`, () => {
      const found = commands(JSON.parse(readFileSync(join(root, manifest), 'utf8')));
      expect(found.length).toBeGreaterThan(2);
      for (const c of found)
        expect(c).toMatch(new RegExp(`(^|exec |=\\S+ )node ${HOOK_NODE_FLAGS} "\\$\\{[A-Z_]+\\}/dist/hook\\.cjs" `));
    });
  }

  it('the Cursor installer writes the same', () => {
    expect(hookCommand({ pkgRoot: '/opt/tiergate' } as never, 'preToolUse')).toBe(
      `node ${HOOK_NODE_FLAGS} /opt/tiergate/dist/hook.cjs cursor preToolUse`,
    );
  });

  it('through a symlinked plugin directory, the hook still decides', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-hookcmd-'));
    const link = join(dir, 'linked-plugin');
    symlinkSync(root, link);
    const payload = fixturePayload('codex/PreToolUse.basic.json');
    const r = spawnSync(process.execPath, [HOOK_NODE_FLAGS, join(link, 'dist/hook.cjs'), 'codex', 'PreToolUse'], {
      input: JSON.stringify({ ...payload, cwd: dir, model: 'gpt-6-luna' }),
      encoding: 'utf8',
      timeout: 15_000,
      env: { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_HOME: join(dir, 'tg') },
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
  });
});

/** The Cursor plugin files tiergate ships (documentation only: Cursor's plugin schema, cursor.md §1, §6). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCursorAdapter } from '../../../../src/adapters/cursor/handlers.js';
import { CURSOR_EVENTS, CURSOR_HOOK_TIMEOUT } from '../../../../src/adapters/cursor/install.js';
import { HOOK_NODE_FLAGS } from '../../../../src/hook-runner/bundles.js';

const root = join(import.meta.dirname, '../../../..');
const read = (p: string) => JSON.parse(readFileSync(join(root, p), 'utf8'));

describe('Cursor manifests', () => {
  const manifest = read('.cursor-plugin/plugin.json');
  const hooks = read('hooks-cursor.json');

  it('plugin.json follows the published schema and points at a Cursor-only hooks file', () => {
    expect(manifest.name).toMatch(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/);
    const allowed = [
      'name',
      'displayName',
      'description',
      'version',
      'minClientVersions',
      'author',
      'publisher',
      'homepage',
      'repository',
      'license',
      'logo',
      'keywords',
      'category',
      'tags',
      'commands',
      'agents',
      'skills',
      'rules',
      'hooks',
      'mcpServers',
    ];
    expect(Object.keys(manifest).filter((k) => !allowed.includes(k))).toEqual([]);
    // hooks/hooks.json is Claude Code's (and Codex's) default path: Cursor gets its own file.
    expect(manifest.hooks).toBe('./hooks-cursor.json');
    expect(manifest.version).toBe(read('package.json').version);
  });

  it('hooks-cursor.json is the flat version-1 format, one entry per event the adapter handles', () => {
    expect(hooks.version).toBe(1);
    const adapter = makeCursorAdapter({
      route: () => {
        throw new Error('unused');
      },
      spool: () => undefined,
      now: () => 0,
    });
    expect(Object.keys(hooks.hooks).sort()).toEqual(Object.keys(adapter.handlers).sort());
    for (const { event, matcher } of CURSOR_EVENTS) {
      const [entry, ...rest] = hooks.hooks[event];
      expect(rest).toEqual([]);
      expect(entry.command).toBe(`node ${HOOK_NODE_FLAGS} "\${CURSOR_PLUGIN_ROOT}/dist/hook.cjs" cursor ${event}`);
      expect(entry.timeout).toBe(CURSOR_HOOK_TIMEOUT);
      expect(entry.matcher ?? null).toBe(matcher);
      expect(entry.hooks).toBeUndefined();
    }
  });
});

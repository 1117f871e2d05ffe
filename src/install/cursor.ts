/**
 * Cursor (documentation only: no Cursor binary runs in tiergate's tests): tiergate's command hooks in the user's
 * `~/.cursor/hooks.json` (cursor.md §1). Flat lowerCamelCase format, `version: 1`. Deleting the file does not
 * unregister hooks in a running Cursor (3.19.13 probe), so an uninstall of a file tiergate created leaves
 * `{"version":1,"hooks":{}}` instead of deleting it.
 */
import { join } from 'node:path';
import { jsonHarnessPlan, jsonInstalled, type JsonEntries } from './json-entries.js';
import type { HarnessPlan, InstallContext } from './plan.js';
import { HOOK_NODE_FLAGS } from '../hook-runner/bundles.js';

export const CURSOR_EVENTS = [
  { event: 'preToolUse', matcher: 'Task' },
  { event: 'subagentStart', matcher: null },
  { event: 'subagentStop', matcher: null },
] as const;

/** Seconds; the hook runner's own deadline fires well before. */
export const CURSOR_HOOK_TIMEOUT = 10;

export function hooksFile(ctx: InstallContext): string {
  return join(ctx.home, '.cursor', 'hooks.json');
}

export function hookCommand(ctx: InstallContext, event: string): string {
  return `node ${HOOK_NODE_FLAGS} "${join(ctx.pkgRoot, 'dist', 'hook.cjs')}" cursor ${event}`;
}

const isTiergateCommand = (event: string) => (v: unknown) =>
  typeof v === 'object' && v !== null && typeof (v as { command?: unknown }).command === 'string' &&
  /tiergate[^"]*\/dist\/hook\.c?js"? cursor /.test((v as { command: string }).command) &&
  (v as { command: string }).command.endsWith(` cursor ${event}`);

export function spec(ctx: InstallContext): JsonEntries {
  return {
    file: hooksFile(ctx),
    defaults: [{ path: ['version'], value: 1 }],
    skeleton: { version: 1, hooks: {} },
    emptyTextWhenAbsent: '{\n  "version": 1,\n  "hooks": {}\n}\n',
    entries: CURSOR_EVENTS.map(({ event, matcher }) => {
      const command = hookCommand(ctx, event);
      const value = matcher ? { command, matcher, timeout: CURSOR_HOOK_TIMEOUT } : { command, timeout: CURSOR_HOOK_TIMEOUT };
      return { path: ['hooks', event], value, same: (v: unknown) => (v as { command?: unknown } | null)?.command === command };
    }),
  };
}

export function planInstall(ctx: InstallContext): HarnessPlan {
  return jsonHarnessPlan('install', 'cursor', spec(ctx), {
    notes: [
      'Cursor support rests on Cursor\'s documentation only: no Cursor binary was run to verify it.',
      'Alternative: install the plugin from this package (.cursor-plugin/plugin.json) with /add-plugin.',
      'Team/Enterprise hooks take precedence over user hooks and can shadow tiergate.',
    ],
  });
}

export function planUninstall(ctx: InstallContext): HarnessPlan {
  const s = spec(ctx);
  return jsonHarnessPlan('uninstall', 'cursor', { ...s, entries: CURSOR_EVENTS.map(({ event }) => ({ path: ['hooks', event], value: null, same: isTiergateCommand(event) })) });
}

export function installed(ctx: InstallContext) {
  return jsonInstalled(spec(ctx));
}

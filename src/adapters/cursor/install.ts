/**
 * Cursor (documentation only: no Cursor binary runs in tiergate's tests): tiergate's command hooks in the user's
 * `~/.cursor/hooks.json` (cursor.md §1). Flat lowerCamelCase format, `version: 1`. Deleting the file does not
 * unregister hooks in a running Cursor (3.19.13 probe), so an uninstall of a file tiergate created leaves
 * `{"version":1,"hooks":{}}` instead of deleting it.
 */
import { join } from 'node:path';
import { jsonHarnessPlan, jsonInstalled, type JsonEntries } from '../../install/json-entries.js';
import type { HarnessPlan, InstallContext } from '../../install/plan.js';
import { HOOK_NODE_FLAGS } from '../../hook-runner/bundles.js';
import { shJoin, shSplit } from '../../install/shell.js';

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

function hookArgv(ctx: InstallContext, event: string): string[] {
  return ['node', HOOK_NODE_FLAGS, join(ctx.pkgRoot, 'dist', 'hook.cjs'), 'cursor', event];
}

/** Cursor runs `command` through the shell: the package path is quoted for it (a path may hold `$(…)`, quotes, spaces). */
export function hookCommand(ctx: InstallContext, event: string): string {
  return shJoin(hookArgv(ctx, event));
}

/**
 * A hook command read back: the script node runs and the words after it. Null when it is not `node [--flags] <script>
 * …` as plain words (shSplit), e.g. an older installer's `"…$(…)…"`, which the shell would expand.
 */
export function parseHookCommand(command: string): { script: string; args: string[] } | null {
  const argv = shSplit(command);
  if (!argv || argv[0] !== 'node') return null;
  let i = 1;
  while (argv[i]?.startsWith('--')) i++;
  return i < argv.length ? { script: argv[i]!, args: argv.slice(i + 1) } : null;
}

const commandOf = (v: unknown): string | null =>
  typeof v === 'object' && v !== null && typeof (v as { command?: unknown }).command === 'string'
    ? (v as { command: string }).command
    : null;

/** This install's command, however it was quoted (the double quotes of installers before shJoin read back the same). */
const isOwnCommand = (ctx: InstallContext, event: string) => {
  const want = hookArgv(ctx, event);
  return (v: unknown) => {
    const cmd = commandOf(v);
    const argv = cmd === null ? null : shSplit(cmd);
    return !!argv && argv.length === want.length && argv.every((w, i) => w === want[i]);
  };
};

/** Any tiergate's hook on `event`; the old textual test too, so uninstall also takes out a command no parser accepts. */
const isTiergateCommand = (event: string) => (v: unknown) => {
  const cmd = commandOf(v);
  if (cmd === null) return false;
  const p = parseHookCommand(cmd);
  if (p)
    return (
      /tiergate.*\/dist\/hook\.c?js$/s.test(p.script) &&
      p.args.length === 2 &&
      p.args[0] === 'cursor' &&
      p.args[1] === event
    );
  return /tiergate[^"]*\/dist\/hook\.c?js"? cursor /.test(cmd) && cmd.endsWith(` cursor ${event}`);
};

export function spec(ctx: InstallContext): JsonEntries {
  return {
    file: hooksFile(ctx),
    defaults: [{ path: ['version'], value: 1 }],
    skeleton: { version: 1, hooks: {} },
    emptyTextWhenAbsent: '{\n  "version": 1,\n  "hooks": {}\n}\n',
    entries: CURSOR_EVENTS.map(({ event, matcher }) => {
      const command = hookCommand(ctx, event);
      const value = matcher
        ? { command, matcher, timeout: CURSOR_HOOK_TIMEOUT }
        : { command, timeout: CURSOR_HOOK_TIMEOUT };
      return { path: ['hooks', event], value, same: isOwnCommand(ctx, event) };
    }),
  };
}

export function planInstall(ctx: InstallContext): HarnessPlan {
  return jsonHarnessPlan('install', 'cursor', spec(ctx), {
    notes: [
      "Cursor support rests on Cursor's documentation only: no Cursor binary was run to verify it.",
      'Alternative: install the plugin from this package (.cursor-plugin/plugin.json) with /add-plugin.',
      'Team/Enterprise hooks take precedence over user hooks and can shadow tiergate.',
    ],
  });
}

export function planUninstall(ctx: InstallContext): HarnessPlan {
  const s = spec(ctx);
  return jsonHarnessPlan('uninstall', 'cursor', {
    ...s,
    entries: CURSOR_EVENTS.map(({ event }) => ({
      path: ['hooks', event],
      value: null,
      same: isTiergateCommand(event),
    })),
  });
}

export function installed(ctx: InstallContext) {
  return jsonInstalled(spec(ctx));
}

/** Cursor is on this machine (install --all): its editor or agent command, or ~/.cursor. */
export function probe(ctx: InstallContext): { bins: string[]; dirs: string[] } {
  return { bins: ['cursor', 'cursor-agent'], dirs: [join(ctx.home, '.cursor')] };
}

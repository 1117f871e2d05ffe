/**
 * Grok Build: tiergate's command hooks in a hooks file of its own, `$GROK_HOME/hooks/tiergate.json` (else
 * `~/.grok/hooks/tiergate.json`). Grok 1.0.41 merges every `*.json` there and trusts them without a prompt (the user's
 * global folder); the user's own files are never opened. The file is Claude-style nested JSON (`hooks.<Event>[]` of
 * `{matcher?, hooks: [{type: "command", command, timeout}]}`); hooks-grok.json is the same for a hand install.
 */
import { join } from 'node:path';
import { HOOK_NODE_FLAGS } from '../../hook-runner/bundles.js';
import { jsonHarnessPlan, jsonInstalled, type JsonEntries } from '../../install/json-entries.js';
import type { HarnessPlan, InstallContext } from '../../install/plan.js';
import { shJoin, shSplit } from '../../install/shell.js';
import { grokHome } from './catalog.js';

/** Every event tiergate listens to; the spawn's two on `spawn_subagent` only. */
export const GROK_EVENTS = [
  { event: 'PreToolUse', matcher: 'spawn_subagent' },
  { event: 'PostToolUse', matcher: 'spawn_subagent' },
  { event: 'SubagentStop', matcher: null },
  { event: 'SessionStart', matcher: null },
  { event: 'SessionEnd', matcher: null },
] as const;

/** Seconds (Grok's default is 5, 600 for SubagentStop's gate); the hook runner's own deadline (5 s) fires first. */
export const GROK_HOOK_TIMEOUT = 10;

export const hooksDir = (ctx: InstallContext): string => join(grokHome({ ...ctx.env, HOME: ctx.home }), 'hooks');
export const hooksFile = (ctx: InstallContext): string => join(hooksDir(ctx), 'tiergate.json');

function hookArgv(ctx: InstallContext, event: string): string[] {
  return ['node', HOOK_NODE_FLAGS, join(ctx.pkgRoot, 'dist', 'hook.cjs'), 'grok', event];
}

/** Grok runs `command` through the shell: the package path is quoted for it. */
export const hookCommand = (ctx: InstallContext, event: string): string => shJoin(hookArgv(ctx, event));

/** A hook command read back as plain words: the script node runs and its arguments; null when it is not that. */
export function parseHookCommand(command: string): { script: string; args: string[] } | null {
  const argv = shSplit(command);
  if (!argv || argv[0] !== 'node') return null;
  let i = 1;
  while (argv[i]?.startsWith('--')) i++;
  return i < argv.length ? { script: argv[i]!, args: argv.slice(i + 1) } : null;
}

/** The commands of one `hooks.<Event>[]` entry. */
export function entryCommands(v: unknown): string[] {
  const hooks = typeof v === 'object' && v !== null ? (v as { hooks?: unknown }).hooks : undefined;
  if (!Array.isArray(hooks)) return [];
  return hooks.flatMap((h) =>
    typeof h === 'object' && h !== null && typeof (h as { command?: unknown }).command === 'string'
      ? [(h as { command: string }).command]
      : [],
  );
}

/** Any tiergate's hook on `event` (another install path, or flags), so a reinstall or an uninstall finds it. */
const isTiergateEntry = (event: string) => (v: unknown) =>
  entryCommands(v).some((cmd) => {
    const p = parseHookCommand(cmd);
    return (
      !!p && /\/dist\/hook\.c?js$/.test(p.script) && p.args.length === 2 && p.args[0] === 'grok' && p.args[1] === event
    );
  });

const isOwnEntry = (ctx: InstallContext, event: string) => {
  const want = hookArgv(ctx, event);
  return (v: unknown) =>
    entryCommands(v).some((cmd) => {
      const argv = shSplit(cmd);
      return !!argv && argv.length === want.length && argv.every((w, i) => w === want[i]);
    });
};

export function entryFor(ctx: InstallContext, event: string, matcher: string | null): Record<string, unknown> {
  const hook = { type: 'command', command: hookCommand(ctx, event), timeout: GROK_HOOK_TIMEOUT };
  return matcher ? { matcher, hooks: [hook] } : { hooks: [hook] };
}

export function spec(ctx: InstallContext): JsonEntries {
  return {
    file: hooksFile(ctx),
    skeleton: { hooks: {} },
    entries: GROK_EVENTS.map(({ event, matcher }) => ({
      path: ['hooks', event],
      value: entryFor(ctx, event, matcher),
      same: isOwnEntry(ctx, event),
    })),
  };
}

export function planInstall(ctx: InstallContext): HarnessPlan {
  return jsonHarnessPlan('install', 'grok', spec(ctx), {
    notes: [
      "Grok Build also runs the hooks of ~/.claude/settings.json: tiergate's Claude hooks stand aside in a Grok session, so each spawn gets one decision.",
      'Takes effect in new Grok sessions.',
    ],
  });
}

export function planUninstall(ctx: InstallContext): HarnessPlan {
  return jsonHarnessPlan('uninstall', 'grok', {
    ...spec(ctx),
    entries: GROK_EVENTS.map(({ event }) => ({ path: ['hooks', event], value: null, same: isTiergateEntry(event) })),
  });
}

export function installed(ctx: InstallContext) {
  return jsonInstalled(spec(ctx));
}

/** Grok Build is on this machine (install --all): its command, or its home folder. */
export function probe(ctx: InstallContext): { bins: string[]; dirs: string[] } {
  return { bins: ['grok'], dirs: [grokHome({ ...ctx.env, HOME: ctx.home })] };
}

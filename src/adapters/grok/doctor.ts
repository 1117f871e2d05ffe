/** Grok Build: are tiergate's hooks in $GROK_HOME/hooks/tiergate.json, plain for the shell, from this package. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from '../../contracts/check.js';
import { readText } from '../../install/backup.js';
import { parseJsonText } from '../../install/edit-json.js';
import { harnessCheck as h, sameFile } from '../../install/inspect.js';
import type { InstallContext } from '../../install/plan.js';
import * as grok from './install.js';

export function checkGrok(ctx: InstallContext): Check {
  const file = grok.hooksFile(ctx);
  const text = readText(file);
  if (text === null) return h('grok', 'info', `not installed (${file} absent); run: tiergate install grok`);
  const p = parseJsonText(text);
  if (!p.ok) return h('grok', 'error', `${file} cannot be parsed: ${p.reason}; Grok Build skips it`);
  const hooks = ((p.value as { hooks?: Record<string, unknown> } | undefined)?.hooks ?? {}) as Record<string, unknown>;
  const ours = grok.GROK_EVENTS.map(({ event }) => {
    const list = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    const command = list
      .flatMap(grok.entryCommands)
      .find((c) => / grok [A-Za-z]+$/.test(c) && c.includes('/dist/hook.'));
    return { event, command: command ?? null };
  });
  const present = ours.filter((o) => o.command);
  const data = { file, events: ours };
  if (present.length === 0) return h('grok', 'info', `not installed (${file}); run: tiergate install grok`, data);
  if (present.length < ours.length)
    return h(
      'grok',
      'error',
      `${file} has tiergate on ${present.map((o) => o.event).join(', ')} only: reinstall`,
      data,
    );
  const unsafe = present.find((o) => !grok.parseHookCommand(o.command!));
  if (unsafe)
    return h(
      'grok',
      'error',
      `${file}: tiergate's ${unsafe.event} command is not plain words for the shell: run tiergate uninstall grok, then tiergate install grok`,
      data,
    );
  const script = grok.parseHookCommand(present[0]!.command!)!.script;
  if (!existsSync(script)) return h('grok', 'error', `${file} runs ${script}, which does not exist`, data);
  if (!sameFile(script, join(ctx.pkgRoot, 'dist', 'hook.cjs')))
    return h('grok', 'error', `${file} runs ${script}, which differs from this version ${ctx.version}`, data);
  return h('grok', 'ok', `hooks in ${file}`, data);
}

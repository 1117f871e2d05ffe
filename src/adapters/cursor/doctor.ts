/** Cursor: are tiergate's hooks in ~/.cursor/hooks.json, plain for the shell, from this package (doctor's harness section). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from '../../contracts/check.js';
import { readText } from '../../install/backup.js';
import { parseJsonText } from '../../install/edit-json.js';
import { harnessCheck as h, sameFile } from '../../install/inspect.js';
import type { InstallContext } from '../../install/plan.js';
import * as cursor from './install.js';

export function checkCursor(ctx: InstallContext): Check {
  const file = cursor.hooksFile(ctx);
  const text = readText(file);
  const docOnly = 'Cursor support is documentation-only (not verified against a Cursor binary)';
  if (text === null)
    return h('cursor', 'info', `not installed (${file} absent); run: tiergate install cursor. ${docOnly}`);
  const p = parseJsonText(text);
  if (!p.ok) return h('cursor', 'error', `${file} cannot be parsed: ${p.reason}`);
  const hooks = ((p.value as { hooks?: Record<string, unknown> } | undefined)?.hooks ?? {}) as Record<string, unknown>;
  const ours = cursor.CURSOR_EVENTS.map(({ event }) => {
    const list = Array.isArray(hooks[event]) ? (hooks[event] as { command?: unknown }[]) : [];
    const hit = list.find(
      (e) =>
        typeof e?.command === 'string' && / cursor [A-Za-z]+$/.test(e.command) && e.command.includes('/dist/hook.cjs'),
    );
    return { event, command: hit ? String(hit.command) : null };
  });
  const present = ours.filter((o) => o.command);
  if (present.length === 0)
    return h('cursor', 'info', `not installed (${file}); run: tiergate install cursor. ${docOnly}`);
  const data = { file, events: ours };
  if (present.length < ours.length)
    return h(
      'cursor',
      'error',
      `${file} has tiergate on ${present.map((o) => o.event).join(', ')} only: reinstall`,
      data,
    );
  // Read back with the installer's own parser (flags or none, quoted either way). A command it refuses is one the
  // shell would expand (an older installer put the path in double quotes): that path could run a command.
  const unsafe = present.find((o) => !cursor.parseHookCommand(o.command!));
  if (unsafe)
    return h(
      'cursor',
      'error',
      `${file}: tiergate's ${unsafe.event} command is not plain words for the shell (its path holds characters the shell expands): run tiergate uninstall cursor, then tiergate install cursor`,
      data,
    );
  const script = cursor.parseHookCommand(present[0]!.command!)!.script;
  if (!existsSync(script)) return h('cursor', 'error', `${file} runs ${script}, which does not exist`, data);
  if (!sameFile(script, join(ctx.pkgRoot, 'dist', 'hook.cjs')))
    return h('cursor', 'error', `${file} runs ${script}, which differs from this version ${ctx.version}`, data);
  return h('cursor', 'ok', `hooks in ${file}. ${docOnly}`, data);
}

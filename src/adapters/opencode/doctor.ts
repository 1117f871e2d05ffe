/** OpenCode: does its config load this tiergate's plugin, once (doctor's harness section). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Check } from '../../contracts/check.js';
import { readText } from '../../install/backup.js';
import { packageVersion } from '../../install/context.js';
import { parseJsonText } from '../../install/edit-json.js';
import { harnessCheck as h, packageOf, sameFile } from '../../install/inspect.js';
import type { InstallContext } from '../../install/plan.js';
import * as opencode from './install.js';

export function checkOpencode(ctx: InstallContext): Check {
  const file = opencode.configFile(ctx);
  const text = readText(file);
  if (text === null) return h('opencode', 'info', `not installed (${file} absent); run: tiergate install opencode`);
  const p = parseJsonText(text);
  if (!p.ok) return h('opencode', 'error', `${file} cannot be parsed: ${p.reason}`);
  const list = ((p.value as { plugin?: unknown } | undefined)?.plugin ?? []) as unknown[];
  const entries = Array.isArray(list) ? (list.filter((v) => opencode.isTiergateEntry(v, ctx)) as string[]) : [];
  if (entries.length === 0) return h('opencode', 'info', `not installed (${file}); run: tiergate install opencode`);
  const data = { file, entries };
  if (entries.length > 1)
    return h('opencode', 'error', `${file} loads tiergate ${entries.length} times: ${entries.join(', ')}`, data);
  const path = fileURLToPath(entries[0]!);
  if (!existsSync(path)) return h('opencode', 'error', `${file} points at ${path}, which does not exist`, data);
  if (!sameFile(path, join(ctx.pkgRoot, 'dist', 'opencode.js'))) {
    const other = packageOf(path);
    return h(
      'opencode',
      'error',
      `${file} loads ${path}${other ? ` (tiergate ${packageVersion(other)})` : ''}, which differs from this version ${ctx.version}`,
      data,
    );
  }
  return h('opencode', 'ok', `plugin entry in ${file}`, data);
}

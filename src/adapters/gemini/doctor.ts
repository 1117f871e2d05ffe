/** Gemini CLI: is tiergate's extension installed, Gemini's copy this package's, and are extension hooks on (doctor). */
import { join } from 'node:path';
import type { Check } from '../../contracts/check.js';
import { readText } from '../../install/backup.js';
import { parseJsonText } from '../../install/edit-json.js';
import { harnessCheck as h } from '../../install/inspect.js';
import type { InstallContext } from '../../install/plan.js';
import { geminiHome, installedDir, installedFrom, stageDir, staleFiles, wantedFiles } from './install.js';

/** `hooksConfig.enabled: false` in the user's settings turns every extension's hooks off (0.61.0 source). */
function hooksDisabled(ctx: InstallContext): boolean {
  const text = readText(join(geminiHome(ctx), 'settings.json'));
  const p = text === null ? null : parseJsonText(text);
  const v = p?.ok ? (p.value as { hooksConfig?: { enabled?: unknown } } | null) : null;
  return v?.hooksConfig?.enabled === false;
}

export function checkGemini(ctx: InstallContext): Check {
  const from = installedFrom(ctx);
  const dir = installedDir(ctx);
  if (!from) return h('gemini', 'info', `not installed (${dir}); run: tiergate install gemini`);
  const data = { extension: dir, from: from.source, expected: stageDir(ctx) };
  if (from.source !== stageDir(ctx))
    return h(
      'gemini',
      'warn',
      `${dir} holds an extension named tiergate from ${from.source ?? 'an unknown source'}, not this tiergate's`,
      data,
    );
  const stale = staleFiles(ctx, wantedFiles(ctx));
  if (stale.length)
    return h(
      'gemini',
      'error',
      `Gemini's copy of the extension (${dir}) differs from what this tiergate writes (${stale.join(', ')}): run tiergate install gemini`,
      data,
    );
  if (hooksDisabled(ctx))
    return h(
      'gemini',
      'error',
      'settings.json sets hooksConfig.enabled = false: Gemini CLI runs no extension hook',
      data,
    );
  return h('gemini', 'ok', `extension ${ctx.version} installed (${dir})`, data);
}

/** Hermes Agent: is tiergate's plugin in $HERMES_HOME/plugins/tiergate, enabled, and pointing at this package's hook. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from '../../contracts/check.js';
import { readText } from '../../install/backup.js';
import { harnessCheck as h, sameFile } from '../../install/inspect.js';
import type { InstallContext } from '../../install/plan.js';
import { addEnabled } from './config-yaml.js';
import { configFile, pluginDir, SETTINGS_FILE } from './install.js';

export function checkHermes(ctx: InstallContext): Check {
  const dir = pluginDir(ctx);
  const init = readText(join(dir, '__init__.py'));
  if (init === null) return h('hermes', 'info', `not installed (${dir} absent); run: tiergate install hermes`);
  const enabled = addEnabled(readText(configFile(ctx)));
  if (!enabled.ok || !enabled.already)
    return h(
      'hermes',
      'error',
      `${dir} is there but ${configFile(ctx)} does not enable it: run tiergate install hermes`,
    );
  let hook: unknown = null;
  try {
    hook = (JSON.parse(readText(join(dir, SETTINGS_FILE)) ?? 'null') as { hook?: unknown } | null)?.hook ?? null;
  } catch {
    hook = null;
  }
  if (typeof hook !== 'string' || !existsSync(hook))
    return h('hermes', 'error', `${join(dir, SETTINGS_FILE)} names no hook that exists: reinstall`);
  if (!sameFile(hook, join(ctx.pkgRoot, 'dist', 'hook.cjs')))
    return h('hermes', 'error', `the plugin runs ${hook}, which differs from this version ${ctx.version}`);
  return h('hermes', 'ok', `plugin in ${dir}, enabled in ${configFile(ctx)}`);
}

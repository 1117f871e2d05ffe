/** pi: does its settings list this tiergate's package, once, and are the tier agents in place (doctor's harness section). */
import { dirname, join } from 'node:path';
import type { Check } from '../../contracts/check.js';
import { readText } from '../../install/backup.js';
import { packageVersion } from '../../install/context.js';
import { parseJsonText } from '../../install/edit-json.js';
import { harnessCheck as h } from '../../install/inspect.js';
import type { InstallContext } from '../../install/plan.js';
import * as pi from './install.js';
import { agentsDir, agentsStatus } from './install-agents.js';
import { NEW_PACKAGE, NEW_PACKAGE_NODE, nodeAtLeast, OLD_PACKAGE, piRelease } from './release.js';

export function checkPi(ctx: InstallContext): Check {
  const file = pi.settingsFile(ctx);
  const text = readText(file);
  if (text === null) return h('pi', 'info', `not installed (${file} absent); run: tiergate install pi`);
  const p = parseJsonText(text);
  if (!p.ok) return h('pi', 'error', `${file} cannot be parsed: ${p.reason}`);
  const list = (p.value as { packages?: unknown } | undefined)?.packages;
  const dirs = (Array.isArray(list) ? list : [])
    .map((e) =>
      typeof e === 'string' ? e : typeof e === 'object' && e !== null ? (e as { source?: unknown }).source : null,
    )
    .filter((e): e is string => typeof e === 'string')
    .map((e) => (e.startsWith('/') ? e : join(dirname(file), e)))
    .filter((d) => readText(join(d, 'package.json'))?.match(/"name"\s*:\s*"tiergate"/));
  if (dirs.length === 0) return h('pi', 'info', `not installed (${file}); run: tiergate install pi`);
  const data = { file, packages: dirs };
  if (dirs.length > 1) return h('pi', 'error', `${file} lists tiergate ${dirs.length} times: ${dirs.join(', ')}`, data);
  const v = packageVersion(dirs[0]!);
  if (v !== ctx.version)
    return h('pi', 'error', `pi loads tiergate ${v} from ${dirs[0]}, this is ${ctx.version}`, data);
  return h('pi', 'ok', `package ${dirs[0]} in ${file}`, data);
}

/**
 * pi's tier agents (tiergate-<tier>.md): without them an over-ceiling pi subagent call can only be denied. A missing
 * or stale file of ours is a warning (install again); a user's own file of that name is a fact, routed to as is.
 */
export function checkPiAgents(ctx: InstallContext): Check {
  const name = 'pi tier agents';
  const agents = agentsStatus(ctx);
  const data = { dir: agentsDir(ctx), agents };
  const list = (states: string[]) =>
    agents
      .filter((a) => states.includes(a.state))
      .map((a) => `${a.file.slice(data.dir.length + 1)} (${a.model ?? 'no model'})`)
      .join(', ');
  if (agents.length === 0) {
    const installed = pi.installed(ctx).installed;
    return h(
      name,
      'info',
      installed
        ? 'none (tiers.pi maps no tier to a model): an over-ceiling pi subagent call is denied, not corrected'
        : 'pi not installed',
      data,
    );
  }
  const missing = list(['missing']);
  const stale = list(['ours-changed']);
  const foreign = list(['foreign']);
  const mine = foreign ? `; your own: ${foreign}` : '';
  if (missing || stale) {
    return h(
      name,
      'warn',
      `${[missing && `missing: ${missing}`, stale && `not what tiers.pi says: ${stale}`].filter(Boolean).join('; ')}${mine}; run: tiergate install pi`,
      data,
    );
  }
  const ours = list(['ours']);
  return h(name, 'ok', `${ours ? `${ours} in ${data.dir}` : `in ${data.dir}`}${mine}`, data);
}

/**
 * Which pi is on PATH (release.ts): the old package name is worth knowing about (pi moved), and the new one on a Node
 * older than it needs does not start at all.
 */
export function checkPiRelease(ctx: InstallContext, nodeVersion = process.versions.node): Check {
  const name = 'pi release';
  const r = piRelease(ctx.env);
  if (!r) return h(name, 'info', `no pi on PATH (${NEW_PACKAGE}, or ${OLD_PACKAGE} up to 0.73.1)`);
  const data = { ...r, node: nodeVersion };
  if (r.name === OLD_PACKAGE)
    return h(
      name,
      'info',
      `pi ${r.version} from ${OLD_PACKAGE}, whose last release is 0.73.1: pi moved to ${NEW_PACKAGE} (npm i -g ${NEW_PACKAGE}); tiergate works with both`,
      data,
    );
  if (!nodeAtLeast(nodeVersion, NEW_PACKAGE_NODE))
    return h(
      name,
      'warn',
      `pi ${r.version} from ${NEW_PACKAGE} needs Node >= ${NEW_PACKAGE_NODE.join('.')} (${r.engine ?? 'engines'}); this Node is ${nodeVersion}, on which it exits at load`,
      data,
    );
  return h(name, 'ok', `pi ${r.version} from ${NEW_PACKAGE}`, data);
}

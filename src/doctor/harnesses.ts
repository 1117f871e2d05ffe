/**
 * Per harness: is tiergate installed, from where, and do the installed plugin files match this version. A harness
 * without tiergate is information, not an error; a half install, a stale copy or an unreadable config is an error.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageVersion } from '../install/context.js';
import { readText, sha256 } from '../install/backup.js';
import * as claude from '../install/claude.js';
import * as codex from '../install/codex.js';
import * as cursor from '../install/cursor.js';
import { parseJsonText } from '../install/edit-json.js';
import { tomlGet } from '../install/edit-toml.js';
import { readMarketplace } from '../install/marketplace.js';
import * as opencode from '../install/opencode.js';
import type { InstallContext } from '../install/plan.js';
import * as pi from '../install/pi.js';
import { agentsDir, agentsStatus } from '../install/pi-agents.js';
import type { Check } from './check.js';

const h = (name: string, status: Check['status'], detail: string, data?: Record<string, unknown>): Check => ({ section: 'harness', name, status, detail, data });

/** The tiergate package a path inside it belongs to (for "installed from where" and its version). */
function packageOf(path: string): string | null {
  let dir = path;
  for (let i = 0; i < 6; i++) {
    dir = dirname(dir);
    const pkg = readText(join(dir, 'package.json'));
    if (pkg?.includes('"name": "tiergate"') || pkg?.includes('"name":"tiergate"')) return dir;
  }
  return null;
}

function sameFile(a: string, b: string): boolean {
  try {
    return sha256(readFileSync(a)) === sha256(readFileSync(b));
  } catch {
    return false;
  }
}

export function checkClaude(ctx: InstallContext): Check {
  const st = claude.settingsState(ctx);
  if (st.error) return h('claude', 'error', `${claude.settingsFile(ctx)} cannot be parsed: ${st.error}`);
  const m = readMarketplace(ctx.pkgRoot, claude.MARKETPLACE_MANIFEST);
  const id = st.enabled.find((e) => e.startsWith('tiergate@'));
  if (!id) return h('claude', 'info', `not installed (${claude.settingsFile(ctx)}); run: tiergate install claude`);
  const market = id.slice('tiergate@'.length);
  const from = st.markets[market] ?? null;
  const installed = readText(join(claude.configDir(ctx), 'plugins', 'installed_plugins.json'));
  let version: string | null = null;
  try {
    const rec = (JSON.parse(installed ?? '{}') as { plugins?: Record<string, { version?: string }[]> }).plugins?.[id]?.[0];
    version = rec?.version ?? null;
  } catch {
    /* reported below as unknown */
  }
  const data = { plugin: id, from, version, expected: ctx.version };
  if (m.ok && from !== null && from !== ctx.pkgRoot) return h('claude', 'warn', `${id} ${version ?? '?'} reads from ${from}, not this package (${ctx.pkgRoot})`, data);
  if (version !== ctx.version) return h('claude', 'error', `${id} is version ${version ?? 'unknown'}, this tiergate is ${ctx.version}: reinstall (Claude Code caches plugins by version)`, data);
  return h('claude', 'ok', `${id} ${version} from ${from ?? '?'}; hooks run in sessions started after install`, data);
}

export function checkCodex(ctx: InstallContext): Check {
  const cfg = codex.readConfig(ctx);
  if (!cfg.parsed) return h('codex', 'error', `${codex.configFile(ctx)} cannot be parsed: ${cfg.error}`);
  const plugins = (tomlGet(cfg.parsed, ['plugins']) ?? {}) as Record<string, { enabled?: boolean }>;
  const id = Object.keys(plugins).find((k) => k.startsWith('tiergate@'));
  if (!id) return h('codex', 'info', `not installed (${codex.configFile(ctx)}); run: tiergate install codex`);
  const market = id.slice('tiergate@'.length);
  const from = tomlGet(cfg.parsed, ['marketplaces', market, 'source']);
  const cache = join(codex.codexHome(ctx), 'plugins', 'cache', market, 'tiergate', ctx.version);
  const data = { plugin: id, from, enabled: plugins[id]?.enabled ?? null, cache, expected: ctx.version };
  if (plugins[id]?.enabled === false) return h('codex', 'warn', `${id} is installed but disabled in config.toml`, data);
  if (tomlGet(cfg.parsed, ['features', 'plugins']) === false) return h('codex', 'error', `${id} is installed but [features] plugins = false: Codex loads no plugin`, data);
  if (!existsSync(cache)) return h('codex', 'error', `${id} is installed but Codex has no ${ctx.version} copy (${cache}): run tiergate install codex --run`, data);
  if (!sameFile(join(cache, 'dist', 'hook.cjs'), join(ctx.pkgRoot, 'dist', 'hook.cjs'))) {
    return h('codex', 'error', `Codex's copy of tiergate (${cache}) differs from this package: reinstall`, data);
  }
  return h('codex', 'ok', `${id} ${ctx.version} from ${String(from)}. ${codex.HOOK_REVIEW_NOTE}`, data);
}

export function checkOpencode(ctx: InstallContext): Check {
  const file = opencode.configFile(ctx);
  const text = readText(file);
  if (text === null) return h('opencode', 'info', `not installed (${file} absent); run: tiergate install opencode`);
  const p = parseJsonText(text);
  if (!p.ok) return h('opencode', 'error', `${file} cannot be parsed: ${p.reason}`);
  const list = ((p.value as { plugin?: unknown } | undefined)?.plugin ?? []) as unknown[];
  const entries = Array.isArray(list) ? list.filter(opencode.isTiergateEntry) as string[] : [];
  if (entries.length === 0) return h('opencode', 'info', `not installed (${file}); run: tiergate install opencode`);
  const data = { file, entries };
  if (entries.length > 1) return h('opencode', 'error', `${file} loads tiergate ${entries.length} times: ${entries.join(', ')}`, data);
  const path = fileURLToPath(entries[0]!);
  if (!existsSync(path)) return h('opencode', 'error', `${file} points at ${path}, which does not exist`, data);
  if (!sameFile(path, join(ctx.pkgRoot, 'dist', 'opencode.js'))) {
    const other = packageOf(path);
    return h('opencode', 'error', `${file} loads ${path}${other ? ` (tiergate ${packageVersion(other)})` : ''}, which differs from this version ${ctx.version}`, data);
  }
  return h('opencode', 'ok', `plugin entry in ${file}`, data);
}

export function checkPi(ctx: InstallContext): Check {
  const file = pi.settingsFile(ctx);
  const text = readText(file);
  if (text === null) return h('pi', 'info', `not installed (${file} absent); run: tiergate install pi`);
  const p = parseJsonText(text);
  if (!p.ok) return h('pi', 'error', `${file} cannot be parsed: ${p.reason}`);
  const list = (p.value as { packages?: unknown } | undefined)?.packages;
  const dirs = (Array.isArray(list) ? list : [])
    .map((e) => (typeof e === 'string' ? e : typeof e === 'object' && e !== null ? (e as { source?: unknown }).source : null))
    .filter((e): e is string => typeof e === 'string')
    .map((e) => (e.startsWith('/') ? e : join(dirname(file), e)))
    .filter((d) => readText(join(d, 'package.json'))?.match(/"name"\s*:\s*"tiergate"/));
  if (dirs.length === 0) return h('pi', 'info', `not installed (${file}); run: tiergate install pi`);
  const data = { file, packages: dirs };
  if (dirs.length > 1) return h('pi', 'error', `${file} lists tiergate ${dirs.length} times: ${dirs.join(', ')}`, data);
  const v = packageVersion(dirs[0]!);
  if (v !== ctx.version) return h('pi', 'error', `pi loads tiergate ${v} from ${dirs[0]}, this is ${ctx.version}`, data);
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
  const list = (states: string[]) => agents.filter((a) => states.includes(a.state)).map((a) => `${a.file.slice(data.dir.length + 1)} (${a.model ?? 'no model'})`).join(', ');
  if (agents.length === 0) {
    const installed = pi.installed(ctx).installed;
    return h(name, 'info', installed ? 'none (tiers.pi maps no tier to a model): an over-ceiling pi subagent call is denied, not corrected' : 'pi not installed', data);
  }
  const missing = list(['missing']);
  const stale = list(['ours-changed']);
  const foreign = list(['foreign']);
  const mine = foreign ? `; your own: ${foreign}` : '';
  if (missing || stale) {
    return h(name, 'warn', `${[missing && `missing: ${missing}`, stale && `not what tiers.pi says: ${stale}`].filter(Boolean).join('; ')}${mine}; run: tiergate install pi`, data);
  }
  const ours = list(['ours']);
  return h(name, 'ok', `${ours ? `${ours} in ${data.dir}` : `in ${data.dir}`}${mine}`, data);
}

export function checkCursor(ctx: InstallContext): Check {
  const file = cursor.hooksFile(ctx);
  const text = readText(file);
  const docOnly = 'Cursor support is documentation-only (not verified against a Cursor binary)';
  if (text === null) return h('cursor', 'info', `not installed (${file} absent); run: tiergate install cursor. ${docOnly}`);
  const p = parseJsonText(text);
  if (!p.ok) return h('cursor', 'error', `${file} cannot be parsed: ${p.reason}`);
  const hooks = ((p.value as { hooks?: Record<string, unknown> } | undefined)?.hooks ?? {}) as Record<string, unknown>;
  const ours = cursor.CURSOR_EVENTS.map(({ event }) => {
    const list = Array.isArray(hooks[event]) ? (hooks[event] as { command?: unknown }[]) : [];
    const hit = list.find((e) => typeof e?.command === 'string' && / cursor [A-Za-z]+$/.test(e.command) && e.command.includes('/dist/hook.cjs'));
    return { event, command: hit ? String(hit.command) : null };
  });
  const present = ours.filter((o) => o.command);
  if (present.length === 0) return h('cursor', 'info', `not installed (${file}); run: tiergate install cursor. ${docOnly}`);
  const data = { file, events: ours };
  if (present.length < ours.length) return h('cursor', 'error', `${file} has tiergate on ${present.map((o) => o.event).join(', ')} only: reinstall`, data);
  // Read back with the installer's own parser (flags or none, quoted either way). A command it refuses is one the
  // shell would expand (an older installer put the path in double quotes): that path could run a command.
  const unsafe = present.find((o) => !cursor.parseHookCommand(o.command!));
  if (unsafe) return h('cursor', 'error', `${file}: tiergate's ${unsafe.event} command is not plain words for the shell (its path holds characters the shell expands): run tiergate uninstall cursor, then tiergate install cursor`, data);
  const script = cursor.parseHookCommand(present[0]!.command!)!.script;
  if (!existsSync(script)) return h('cursor', 'error', `${file} runs ${script}, which does not exist`, data);
  if (!sameFile(script, join(ctx.pkgRoot, 'dist', 'hook.cjs'))) return h('cursor', 'error', `${file} runs ${script}, which differs from this version ${ctx.version}`, data);
  return h('cursor', 'ok', `hooks in ${file}. ${docOnly}`, data);
}

export function checkHarnesses(ctx: InstallContext): Check[] {
  return [checkClaude, checkCodex, checkCursor, checkOpencode, checkPi, checkPiAgents].map((f) => {
    try {
      return f(ctx);
    } catch (err) {
      return h(f.name.replace(/^check/, '').toLowerCase(), 'error', `check failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
}

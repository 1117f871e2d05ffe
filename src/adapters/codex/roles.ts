/**
 * The model a Codex agent role (`spawn_agent`'s `agent_type`) pins, resolved the way codex-cli 0.169.0 does (seen with
 * the real binary against a fake API, docs/codex.md):
 *  - `agent_type` appears in spawn_agent's schema only when the user has a role; a role's `model` beats the spawn's
 *    `model` (the tool description says "This role's model is set to `<m>` and cannot be changed"; a spawn model and a
 *    PreToolUse `updatedInput` model were both ignored), a role without `model` runs on the spawn's model, else the
 *    parent's; built-in roles (default, explorer, worker, awaiter) pin none; an unknown `agent_type` starts no child.
 *  - Roles come from a trusted project's `.codex/agents/*.toml`, over `[agents.<name>] config_file` in
 *    `$CODEX_HOME/config.toml` (a relative path is under CODEX_HOME), over `$CODEX_HOME/agents/*.toml`; a role file is
 *    keyed by its `name`, not its file name. A project that is not trusted has no project roles.
 * Only read for a spawn that names `agent_type`, so a plain spawn costs nothing. Bounded: config.toml ≤ 512 KiB, at most
 * 64 role files of ≤ 64 KiB per directory. A file that cannot be read is skipped; nothing here throws.
 *
 * The TOML is read by a scanner for single-line string values (role `name`/`model`, `config_file`, `trust_level`), not
 * smol-toml (the installer's parser): that would add ~28 KB to the 55 KB dispatch bundle every Codex spawn loads.
 * test/unit/adapters/codex/roles.test.ts checks the scanner against smol-toml.
 */
import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Env } from '../../io/paths.js';
import { readTextCapped } from '../../io/read-capped.js';

export type CodexRole = { name: string; model: string | null; from: string };

const CONFIG_BYTES = 512 * 1024;
const ROLE_BYTES = 64 * 1024;
const MAX_ROLE_FILES = 64;
const MAX_UP = 64;
/** Codex 0.169.0's built-in roles (spawn_agent's role list, seen; awaiter.toml in the binary): none pins a model. */
export const BUILTIN_ROLES: readonly string[] = ['default', 'explorer', 'worker', 'awaiter'];

export const codexHome = (env: Env): string => env.CODEX_HOME || join(env.HOME || homedir(), '.codex');

// ---------------------------------------------------------------------------------------------------------------
// A scanner for the string-valued keys of a TOML document.

/** A dotted key (`a."b.c".d`) -> its parts; null when it is not one. */
function keyPath(text: string): string[] | null {
  const parts: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(\.|$)/y;
  let pos = 0;
  while (pos < text.length) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) return null;
    parts.push(m[1] !== undefined ? unescape(m[1]) : (m[2] ?? m[3]!));
    pos = re.lastIndex;
    if (m[4] === '' && pos < text.length) return null;
  }
  return parts.length ? parts : null;
}

/** TOML basic-string escapes are JSON's plus \U and \e; an escape JSON does not know makes the value unreadable. */
function unescape(body: string): string {
  return JSON.parse(
    `"${body.replace(/\\U([0-9A-Fa-f]{8})/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)).replace(/[\\"]/g, '\\$&')).replace(/\\e/g, '\\u001b')}"`,
  ) as string;
}

/**
 * Every `key = "string"` / `key = 'string'` on one line, with its full path (table header + dotted key). Multi-line
 * strings are skipped whole (a role's developer_instructions may hold a line like `model = "x"`), array tables and
 * values of other types are ignored. Malformed lines are skipped, never thrown on.
 */
export function tomlStrings(text: string): Array<{ path: string[]; value: string }> {
  const out: Array<{ path: string[]; value: string }> = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let table: string[] | null = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = /^\s*\[([^[\]]+)\]\s*(#.*)?$/.exec(line);
    if (header) {
      table = keyPath(header[1]!);
      continue;
    }
    if (/^\s*\[\[/.test(line)) {
      table = null; // entries of an array table are not addressed by a plain path
      continue;
    }
    const kv =
      /^\s*((?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'))*)\s*=\s*(.*)$/.exec(
        line,
      );
    if (!kv) continue;
    const rest = kv[2]!;
    const multi = /^("""|''')/.exec(rest);
    if (multi) {
      // Skip to the closing delimiter (on this line after the opening one, or a later line).
      const delim = multi[1]!;
      if (rest.indexOf(delim, 3) < 0) while (i + 1 < lines.length && !lines[++i]!.includes(delim));
      continue;
    }
    const str = /^(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(#.*)?$/.exec(rest);
    const key = keyPath(kv[1]!);
    if (!str || !key || table === null) continue;
    try {
      out.push({ path: [...table, ...key], value: str[1] !== undefined ? unescape(str[1]) : str[2]! });
    } catch {
      // an escape this scanner does not read: the value stays unknown
    }
  }
  return out;
}

const valueAt = (entries: Array<{ path: string[]; value: string }>, ...path: string[]): string | null =>
  entries.find((e) => e.path.length === path.length && e.path.every((p, i) => p === path[i]))?.value ?? null;

// ---------------------------------------------------------------------------------------------------------------

function readToml(path: string, maxBytes: number): Array<{ path: string[]; value: string }> | null {
  try {
    // A regular file only (a FIFO named like a role file would stop the hook in open(2)).
    if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return null;
    return tomlStrings(readTextCapped(path, maxBytes));
  } catch {
    return null;
  }
}

/** The role files of one `agents` directory, by their `name`. */
function rolesIn(dir: string): Map<string, CodexRole> {
  const out = new Map<string, CodexRole>();
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.toml'))
      .sort()
      .slice(0, MAX_ROLE_FILES);
  } catch {
    return out;
  }
  for (const f of files) {
    const path = join(dir, f);
    const entries = readToml(path, ROLE_BYTES);
    const name = entries && valueAt(entries, 'name');
    if (!entries || !name || out.has(name)) continue;
    out.set(name, { name, model: valueAt(entries, 'model'), from: path });
  }
  return out;
}

/** Whether `dir` lies in a project the user trusts (`[projects."<path>"] trust_level = "trusted"`). */
function trusted(config: Array<{ path: string[]; value: string }>, dir: string): boolean {
  for (const e of config) {
    if (e.path.length !== 3 || e.path[0] !== 'projects' || e.path[2] !== 'trust_level' || e.value !== 'trusted')
      continue;
    const root = resolve(e.path[1]!);
    if (dir === root || dir.startsWith(root.endsWith('/') ? root : `${root}/`)) return true;
  }
  return false;
}

/** The role `name` resolves to, or null when no source defines it (Codex then refuses the spawn) or none is readable. */
export function resolveCodexRole(env: Env, cwd: string | null, name: string): CodexRole | null {
  const home = codexHome(env);
  const configPath = join(home, 'config.toml');
  const config = readToml(configPath, CONFIG_BYTES) ?? [];

  // 1. A trusted project's roles, the nearest .codex/agents first.
  if (cwd && isAbsolute(cwd)) {
    let dir = resolve(cwd);
    for (let i = 0; i < MAX_UP; i++) {
      const agents = join(dir, '.codex', 'agents');
      if (join(dir, '.codex') !== home && trusted(config, dir)) {
        const role = rolesIn(agents).get(name);
        if (role) return role;
      }
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }

  // 2. `[agents.<name>]` in the user's config.toml, its model in the config_file.
  const declared = config.some((e) => e.path[0] === 'agents' && e.path[1] === name && e.path.length === 3);
  if (declared) {
    const file = valueAt(config, 'agents', name, 'config_file');
    if (!file) return { name, model: null, from: `${configPath} [agents.${name}]` };
    const path = isAbsolute(file) ? file : join(home, file);
    const entries = readToml(path, ROLE_BYTES);
    if (entries) return { name, model: valueAt(entries, 'model'), from: path };
    // Declared, but its config file is unreadable here: what it pins is unknown.
    return null;
  }

  // 3. The user's role files.
  const user = rolesIn(join(home, 'agents')).get(name);
  if (user) return user;

  // 4. Built-in roles run on the spawn's model or the parent's.
  if (BUILTIN_ROLES.includes(name)) return { name, model: null, from: `codex built-in role ${name}` };
  return null;
}

/**
 * The drain side of the hooks module's spool. The module writes one JSON file per record through `$.fs.write` (it
 * cannot append, open SQLite or start Node on the dispatch path); Node-side code — the SubagentStop/SessionEnd
 * command hooks and every CLI run — moves them into the common spool with appendSpool, where the ledger drains them.
 *
 * Claiming is a rename, so two drains at once never copy a record twice.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SpoolRecordSchema } from '../../contracts/spool.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import { existingPrivateDir, moveFile, removeFile } from '../../io/files.js';
import { paths, type Env } from '../../io/paths.js';
import { readTextCapped } from '../../io/read-capped.js';
import { spoolRecord } from '../../observer/spend-record.js';
import { MODULE_SPOOL_FORMAT, MODULE_SPOOL_MAX_FILES, moduleSpoolDir } from './module/core.js';

/** A record file is a few KB; anything bigger is not ours. */
const MAX_RECORD_BYTES = 256 * 1024;

export type DrainResult = { moved: number; diagnostics: number; rejected: number };

/** Where module spools live: this environment's data dir and, for a CLI run outside Claude Code, every tiergate plugin data dir. */
export function moduleSpoolDirs(env: Env): string[] {
  const dirs = new Set<string>([moduleSpoolDir(paths(env).data)]);
  const configDir = env.CLAUDE_CONFIG_DIR || (env.HOME ? join(env.HOME, '.claude') : null);
  if (configDir && !env.CLAUDE_PLUGIN_DATA) {
    const root = join(configDir, 'plugins', 'data');
    try {
      for (const name of readdirSync(root)) if (name.startsWith('tiergate')) dirs.add(moduleSpoolDir(join(root, name)));
    } catch {
      /* no plugin data yet */
    }
  }
  return [...dirs];
}

export function drainModuleSpool(env: Env, dirs: string[] = moduleSpoolDirs(env)): DrainResult {
  const result: DrainResult = { moved: 0, diagnostics: 0, rejected: 0 };
  for (const dir of dirs) {
    let names: string[];
    try {
      // `spool/` and `spool/claude-module/` must be real directories: through a link, the drain would read and delete
      // every `*.json` of its target.
      if (!existingPrivateDir(dirname(dir)) || !existingPrivateDir(dir)) continue;
    } catch (err) {
      diagnose('error', 'claude:module-spool', `not drained: ${errorText(err)}`, { dir }, env);
      continue;
    }
    try {
      names = readdirSync(dir)
        .filter((n) => n.endsWith('.json'))
        .sort()
        .slice(0, MODULE_SPOOL_MAX_FILES * 2);
    } catch {
      continue;
    }
    for (const name of names) {
      const file = join(dir, name);
      const claimed = `${file}.claimed-${process.pid}`;
      try {
        moveFile(file, claimed);
      } catch {
        continue; // another drain took it
      }
      try {
        // Not followed: a link or a FIFO under a record's name is refused (and its entry removed below), never read.
        const body = JSON.parse(readTextCapped(claimed, MAX_RECORD_BYTES, { follow: false })) as Record<
          string,
          unknown
        >;
        if (body.format !== MODULE_SPOOL_FORMAT) throw new Error(`unknown format ${String(body.format)}`);
        if (body.diagnostic && typeof body.diagnostic === 'object') {
          const d = body.diagnostic as { level?: string; where?: string; message?: string };
          const level = d.level === 'error' || d.level === 'info' ? d.level : 'warn';
          diagnose(level, String(d.where ?? 'claude-module'), String(d.message ?? ''), {}, env);
          result.diagnostics += 1;
        } else {
          // A completion is counted in the budgets' spend summary too (spend-record.ts): the module cannot write it.
          spoolRecord(SpoolRecordSchema.parse(body.record), env);
          result.moved += 1;
        }
      } catch (err) {
        result.rejected += 1;
        diagnose('warn', 'claude:module-spool', `dropped ${name}: ${errorText(err)}`, {}, env);
      } finally {
        try {
          removeFile(claimed);
        } catch {
          /* gone already */
        }
      }
    }
  }
  return result;
}

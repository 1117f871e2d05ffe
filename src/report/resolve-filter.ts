/**
 * `--session` and `--project` as a person types them: the start of a session id (what `report --by session` shows),
 * and a project directory, relative or absolute, or the unique start of one the ledger knows (its path or its last
 * component). Exact matches keep their old meaning (a directory includes its subdirectories). Read from the sessions
 * table, which every dispatch and completion touches.
 */
import { trimSlash } from '../io/text.js';
import { basename, resolve } from 'node:path';
import type { SqlDriver } from '../observer/ledger/driver.js';

export type Resolved = { value: string } | { problem: string };

const SHOW = 4;
const listed = (xs: readonly string[]) => `${xs.slice(0, SHOW).join(', ')}${xs.length > SHOW ? ', …' : ''}`;

export function resolveSession(db: SqlDriver, text: string): Resolved {
  if (db.prepare('SELECT 1 AS x FROM sessions WHERE session_id = ? LIMIT 1').get(text)) return { value: text };
  const hits = db
    .prepare('SELECT DISTINCT session_id AS id FROM sessions WHERE substr(session_id, 1, ?) = ? ORDER BY id LIMIT ?')
    .all<{ id: string }>(text.length, text, SHOW + 1)
    .map((r) => r.id);
  if (hits.length === 1) return { value: hits[0]! };
  if (hits.length === 0)
    return { problem: `no session id starts with '${text}' ('tiergate report --by session' lists them)` };
  return { problem: `'${text}' starts more than one session id (${listed(hits)}): give more of it` };
}

const under = (project: string, dir: string) => project === dir || project.startsWith(dir === '/' ? '/' : `${dir}/`);

export function resolveProject(db: SqlDriver, text: string, cwd: string): Resolved {
  const projects = db
    .prepare('SELECT DISTINCT project AS p FROM sessions WHERE project IS NOT NULL')
    .all<{ p: string }>()
    .map((r) => r.p);
  const asTyped = trimSlash(text);
  const absolute = trimSlash(resolve(cwd, text));
  for (const dir of [asTyped, absolute]) if (projects.some((p) => under(p, dir))) return { value: dir };
  const hits = [
    ...new Set(
      projects.filter((p) => p.startsWith(asTyped) || p.startsWith(absolute) || basename(p).startsWith(asTyped)),
    ),
  ].sort();
  if (hits.length === 1) return { value: hits[0]! };
  if (hits.length === 0) {
    return {
      problem: `no project in the ledger is ${absolute} or starts with '${text}' ('tiergate report --by session' shows each session's project)`,
    };
  }
  return { problem: `'${text}' starts more than one project (${listed(hits)}): give more of it` };
}

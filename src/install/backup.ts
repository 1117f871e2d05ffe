/**
 * Backs a user's file up before tiergate edits it, and decides when an uninstall may put the backup's bytes back.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { backupFile, writeFileAtomic } from '../io/files.js';

export const BACKUP_SUFFIX = 'tiergate-backup';

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

export function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Copies the file aside (`<file>.tiergate-backup`, user-only); null when there is no file. */
export function backUp(path: string): string | null {
  return backupFile(path, BACKUP_SUFFIX);
}

/**
 * Writes through a temp file + rename, keeping the file's permission bits when it already exists. A user's config file
 * may be a symlink into a dotfiles repository: the rename then replaces the file the link resolves to, and the link
 * stays. A link that resolves to nothing is refused (linkProblem), before anything is written.
 */
export function writeKeepingMode(path: string, text: string): void {
  const target = resolvedTarget(path);
  const mode = existsSync(target) ? statSync(target).mode & 0o777 : 0o600;
  writeFileAtomic(target, text, { mode });
}

/** The file an edit of `path` lands in: `path`, or the end of its symlink chain. Throws what linkProblem says. */
export function resolvedTarget(path: string): string {
  const problem = linkProblem(path);
  if (problem) throw new Error(problem);
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ? realpathSync(path) : path;
}

/**
 * Why tiergate must not write `path`, or null: it (or the nearest of its directories that exists) is a symlink that
 * resolves to nothing, dangling or a loop. Writing there would create a file where the user's link points, or replace
 * the link; either way not what the user set up.
 */
export function linkProblem(path: string): string | null {
  for (let p = path; ; p = dirname(p)) {
    let isLink: boolean;
    try {
      isLink = lstatSync(p).isSymbolicLink();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') return loopMessage(path, p);
      // Missing: the question moves to the directory it would be created in.
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dirname(p) !== p) continue;
      return null;
    }
    if (!isLink) return null;
    try {
      realpathSync(p);
      return null;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') return loopMessage(path, p);
      const to = readLinkSafe(p);
      return `${p} is a symlink to ${to ?? '?'}, which does not exist (${code ?? 'unresolvable'}): create the file it points to or remove the link; ${path} left untouched`;
    }
  }
}

const loopMessage = (path: string, link: string) => `${link} is a symlink loop: fix the link; ${path} left untouched`;

function readLinkSafe(p: string): string | null {
  try {
    return readlinkSync(p);
  } catch {
    return null;
  }
}

/**
 * True when `now` equals `before` except for keys `before` lacks whose values are empty (`{}` / `[]`, nested): the
 * residue a harness's own uninstall command leaves (pi leaves `"packages": []`, reference pi.md §3).
 */
export function onlyEmptyResidue(now: unknown, before: unknown): boolean {
  if (isPlainObject(now) && isPlainObject(before)) {
    for (const k of Object.keys(before)) if (!(k in now)) return false;
    return Object.entries(now).every(([k, v]) => (k in before ? onlyEmptyResidue(v, before[k]) : isEmpty(v)));
  }
  return JSON.stringify(now) === JSON.stringify(before);
}

function isEmpty(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) return Object.values(v).every(isEmpty);
  return false;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

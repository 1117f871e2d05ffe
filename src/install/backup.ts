/**
 * Backs a user's file up before tiergate edits it, and decides when an uninstall may put the backup's bytes back.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
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

/** Writes through a temp file + rename, keeping the file's permission bits when it already exists. */
export function writeKeepingMode(path: string, text: string): void {
  const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o600;
  writeFileAtomic(path, text, { mode });
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

/**
 * The one install shape three harnesses share (OpenCode `plugin[]`, pi `packages[]`, Cursor `hooks.<event>[]`): make
 * sure some arrays in a user's JSON/JSONC file hold tiergate's entries, and know how to take exactly those back out.
 */
import type { JSONPath } from 'jsonc-parser';
import type { Harness } from '../contracts/harness.js';
import {
  appendToArray,
  deepEqual,
  getAt,
  newJsonText,
  parseJsonText,
  removeAt,
  removeFromArray,
  setAt,
} from './edit-json.js';
import { readText } from './backup.js';
import { emptyPlan, type FileEditStep, type HarnessPlan, type UndoStep } from './plan.js';

export type JsonEntries = {
  file: string;
  /** Array entries tiergate adds. `same` decides whether an existing element already is tiergate's. */
  entries: { path: JSONPath; value: unknown; same?: (existing: unknown) => boolean }[];
  /** Scalars set only when absent (Cursor's `version: 1`). */
  defaults?: { path: JSONPath; value: unknown }[];
  /** Uninstall of a file that did not exist leaves this text instead of deleting it (null: delete). */
  emptyTextWhenAbsent?: string | null;
  /** The file's text for a fresh file before entries are added. */
  skeleton?: unknown;
};

const matches = (e: JsonEntries['entries'][number], existing: unknown) =>
  e.same ? e.same(existing) : deepEqual(existing, e.value);

/** Adds what is missing to `plan`; refuses (with the reason) a file it cannot parse. */
export function planJsonInstall(plan: HarnessPlan, spec: JsonEntries): void {
  const before = readText(spec.file);
  const parsed = parseJsonText(before ?? '');
  if (!parsed.ok) {
    plan.refused.push(`${spec.file}: cannot parse (${parsed.reason}); left untouched`);
    return;
  }
  let text = before === null || before.trim() === '' ? (before ?? '') : before;
  if (before === null || before.trim() === '') text = newJsonText(spec.skeleton ?? {});
  const undo: UndoStep[] = [];
  const created: JSONPath[] = [];
  const added: string[] = [];
  for (const d of spec.defaults ?? []) {
    if (getAt(text, d.path) === undefined) {
      text = setAt(text, d.path, d.value);
      if (before !== null && before.trim() !== '') undo.push({ op: 'remove-key', path: d.path, onlyIfEmpty: false });
    }
  }
  for (const e of spec.entries) {
    const current = getAt(text, e.path);
    if (Array.isArray(current) && current.some((x) => matches(e, x))) continue;
    if (current !== undefined && !Array.isArray(current)) {
      plan.refused.push(`${spec.file}: "${e.path.join('.')}" is not an array; left untouched`);
      return;
    }
    // Parents jsonc-parser creates along the way are tiergate's to remove again, once empty.
    for (let i = 1; i < e.path.length; i++) {
      const parent = e.path.slice(0, i);
      if (getAt(text, parent) === undefined && !created.some((c) => deepEqual(c, parent))) created.push(parent);
    }
    undo.push({ op: 'remove-from-array', path: e.path, value: e.value, dropIfEmpty: current === undefined });
    text = appendToArray(text, e.path, e.value);
    added.push(e.path.join('.'));
  }
  for (const c of created.reverse()) undo.push({ op: 'remove-key', path: c, onlyIfEmpty: true });
  if (added.length === 0) {
    plan.alreadyInstalled = true;
    return;
  }
  const step: FileEditStep = {
    kind: 'edit',
    file: spec.file,
    description: `${before === null ? 'create' : 'edit'} ${spec.file}: add tiergate to ${added.join(', ')}`,
    before,
    after: text,
    undo,
    emptyTextWhenAbsent: spec.emptyTextWhenAbsent ?? null,
  };
  plan.steps.push(step);
}

/** Applies recorded (or derived) undo steps to the file's current text. */
export function applyUndo(text: string, undo: UndoStep[]): string {
  let out = text;
  for (const u of undo) {
    if (u.op === 'remove-from-array') {
      out = removeFromArray(out, u.path, u.value);
      const left = getAt(out, u.path);
      if (u.dropIfEmpty && Array.isArray(left) && left.length === 0) out = removeAt(out, u.path);
    } else {
      const v = getAt(out, u.path);
      if (v === undefined) continue;
      const empty = v !== null && typeof v === 'object' && Object.keys(v as object).length === 0;
      // A value the user has replaced since (their own status line) is theirs: left.
      if (u.onlyIfEqual !== undefined && !deepEqual(v, u.onlyIfEqual)) continue;
      if (!u.onlyIfEmpty || empty) out = removeAt(out, u.path);
    }
  }
  return out;
}

/**
 * Uninstall without a record (installed by hand or by an older tiergate): remove tiergate's own entries and nothing
 * else. The file is refused when unparseable.
 */
export function planJsonUninstall(plan: HarnessPlan, spec: JsonEntries): void {
  const before = readText(spec.file);
  if (before === null) return;
  const parsed = parseJsonText(before);
  if (!parsed.ok) {
    plan.refused.push(`${spec.file}: cannot parse (${parsed.reason}); left untouched`);
    return;
  }
  let text = before;
  const removed: string[] = [];
  for (const e of spec.entries) {
    for (;;) {
      const current = getAt(text, e.path);
      if (!Array.isArray(current)) break;
      const hit = current.find((x) => matches(e, x));
      if (hit === undefined) break;
      text = removeFromArray(text, e.path, hit);
      removed.push(e.path.join('.'));
    }
  }
  if (removed.length === 0) return;
  plan.steps.push({
    kind: 'edit',
    file: spec.file,
    description: `edit ${spec.file}: remove tiergate from ${[...new Set(removed)].join(', ')}`,
    before,
    after: text,
    undo: [],
    emptyTextWhenAbsent: null,
  });
}

/** True when the file holds every tiergate entry. */
export function jsonInstalled(spec: JsonEntries): { installed: boolean; partial: boolean; error: string | null } {
  const text = readText(spec.file);
  if (text === null) return { installed: false, partial: false, error: null };
  const parsed = parseJsonText(text);
  if (!parsed.ok) return { installed: false, partial: false, error: parsed.reason };
  const have = spec.entries.map((e) => {
    const cur = getAt(text, e.path);
    return Array.isArray(cur) && cur.some((x) => matches(e, x));
  });
  return { installed: have.every(Boolean), partial: have.some(Boolean) && !have.every(Boolean), error: null };
}

/** What a harness adds to its JSON plan: more steps (after the file's edit), then notes for the user. */
export type JsonPlanExtras = { also?: (plan: HarnessPlan) => void; notes?: readonly string[] };

/**
 * The plan of a harness that tiergate enters in one JSON file (OpenCode, pi, Cursor): spec's entries added (install) or
 * taken out without a record (uninstall), then the harness's extras.
 */
export function jsonHarnessPlan(
  verb: 'install' | 'uninstall',
  harness: Harness,
  spec: JsonEntries,
  extras: JsonPlanExtras = {},
): HarnessPlan {
  const plan = emptyPlan(harness, spec.file);
  (verb === 'install' ? planJsonInstall : planJsonUninstall)(plan, spec);
  extras.also?.(plan);
  plan.notes.push(...(extras.notes ?? []));
  return plan;
}

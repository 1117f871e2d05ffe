/** What an install or uninstall will do, as data: printed by --dry-run, executed by apply.ts, recorded for undo. */
import type { JSONPath } from 'jsonc-parser';
import type { Harness } from '../contracts/harness.js';
import type { Env } from '../io/paths.js';

export type InstallContext = {
  env: Env;
  /** The installed tiergate package (holds dist/, the manifests, data/). */
  pkgRoot: string;
  version: string;
  home: string;
  /** `install claude --statusline`: also show `tiergate statusline` in Claude Code's status bar, if it has none. */
  statusline?: boolean;
};

/** How to take one edit back out when the file changed since install (structural, not byte restore). */
export type UndoStep =
  | { op: 'remove-from-array'; path: JSONPath; value: unknown; dropIfEmpty: boolean }
  | { op: 'remove-key'; path: JSONPath; onlyIfEmpty: boolean; onlyIfEqual?: unknown };

export type FileEditStep = {
  kind: 'edit';
  file: string;
  description: string;
  /** The file's text before (null: no file). */
  before: string | null;
  /** The text to write (null: delete the file). */
  after: string | null;
  undo: UndoStep[];
  /** What uninstall leaves when there was no file before (null: delete it). Cursor keeps an empty hooks file. */
  emptyTextWhenAbsent: string | null;
};

/**
 * A step that writes (or, after === null, deletes) a file as a whole: nothing to take out structurally, so uninstall
 * puts the recorded bytes back (or deletes what tiergate created).
 */
export const wholeFileEdit = (
  file: string,
  description: string,
  before: string | null,
  after: string | null,
): FileEditStep => ({ kind: 'edit', file, description, before, after, undo: [], emptyTextWhenAbsent: null });

export type CommandStep = {
  kind: 'command';
  argv: string[];
  description: string;
  /** Files the command edits: backed up first, and put back byte for byte when its uninstall leaves only residue. */
  touches: { file: string; format: 'json' | 'toml' }[];
};

export type Step = FileEditStep | CommandStep;

export type HarnessPlan = {
  harness: Harness;
  /** Where it installs (a config file or a config dir), for the user. */
  target: string;
  steps: Step[];
  /** Reasons nothing can be done (an unparseable file, a missing manifest); the other harnesses carry on. */
  refused: string[];
  /** Already in place: nothing to do. */
  alreadyInstalled: boolean;
  /** What the user must know or do next (Codex hook review, Claude new session, Cursor documentation-only). */
  notes: string[];
};

export const emptyPlan = (harness: Harness, target: string): HarnessPlan => ({
  harness,
  target,
  steps: [],
  refused: [],
  alreadyInstalled: false,
  notes: [],
});

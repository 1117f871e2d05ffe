/**
 * Carries out install/uninstall plans: back up, write atomically, run (or print) the harness's own commands, record
 * what was added, and on uninstall put each file back byte for byte when nothing else changed it.
 */
import { existsSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import type { Harness } from '../../contracts/harness.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import { removeEmptyDir, removeFile, removeNoFollow } from '../../io/files.js';
import { runBounded } from '../../io/processes.js';
import { backUp, linkProblem, onlyEmptyResidue, readText, sha256, writeKeepingMode } from '../../install/backup.js';
import { parseJsonText } from '../../install/edit-json.js';
import { parseTomlText } from '../../install/edit-toml.js';
import { applyUndo } from '../../install/json-entries.js';
import { shJoin } from '../../install/shell.js';
import { type CommandStep, type FileEditStep, type HarnessPlan, type InstallContext } from '../../install/plan.js';
import {
  readRecord,
  writeRecord,
  type FileRecord,
  type HarnessRecord,
  type InstallRecord,
  type TouchRecord,
} from '../../install/record.js';
import { HARNESSES } from '../../adapters/index.js';

export type Options = {
  dryRun: boolean;
  run: boolean;
  commandTimeoutMs?: number;
  /** A line before and after each harness command --run waits on (Claude Code's took 68 s of silence). */
  progress?: (line: string) => void;
  /** Write a file the user made read-only (its mode is kept); without it such a file refuses the harness. */
  force?: boolean;
};

export type Outcome = {
  harness: Harness;
  target: string;
  /**
   * done: applied; unchanged: nothing to do; planned: --dry-run; manual: commands printed for the user; refused /
   * failed; skipped: `--all` found no trace of the harness on this machine (cli/install/detect.ts).
   */
  status: 'done' | 'unchanged' | 'planned' | 'manual' | 'refused' | 'failed' | 'skipped';
  actions: string[];
  /** Commands the user still has to run (printed mode). */
  commands: string[][];
  problems: string[];
  notes: string[];
};

const COMMAND_TIMEOUT_MS = 120_000;

function outcome(plan: HarnessPlan): Outcome {
  return {
    harness: plan.harness,
    target: plan.target,
    status: 'done',
    actions: [],
    commands: [],
    problems: [...plan.refused],
    notes: [...plan.notes],
  };
}

function fileAction(s: FileEditStep): string {
  return s.description;
}

/** An absolute path that exists, or a bare name found on PATH. */
export function binaryFound(ctx: InstallContext, bin: string): boolean {
  if (bin.includes('/')) return existsSync(bin);
  return (ctx.env.PATH ?? '').split(delimiter).some((d) => d !== '' && existsSync(join(d, bin)));
}

/**
 * Every file a plan would write, judged before anything is: a symlink that resolves nowhere (dangling, a loop) refuses
 * the whole harness, so nothing of it changes. A link that resolves is written through (writeKeepingMode).
 */
function linkRefusals(plan: HarnessPlan, more: string[] = []): string[] {
  return planFiles(plan, more, true).flatMap((f) => linkProblem(f) ?? []);
}

/** The files a plan names: each edit, `more`, and (withTouches) its target and what its harness commands write. */
function planFiles(plan: HarnessPlan, more: string[], withTouches: boolean): string[] {
  const files = new Set(withTouches ? [plan.target, ...more] : more);
  for (const s of plan.steps) {
    if (s.kind === 'edit') files.add(s.file);
    else if (withTouches) for (const t of s.touches) files.add(t.file);
  }
  return [...files].filter((f) => f !== '');
}

/**
 * The files a plan would write that the user made read-only (no write bit at all, through a link: its target). A
 * `chmod a-w` is how a user pins a config file, and the atomic rename would replace it all the same (always as root),
 * so without --force the harness is refused, nothing of it written. What commands write (touches) counts only when
 * tiergate runs them (--run).
 */
function readOnlyFiles(plan: HarnessPlan, more: string[], commandsRun: boolean): [string, number][] {
  return planFiles(plan, more, commandsRun).flatMap((f): [string, number][] => {
    try {
      const st = statSync(f, { throwIfNoEntry: false });
      return st?.isFile() && (st.mode & 0o222) === 0 ? [[f, st.mode & 0o777]] : [];
    } catch {
      return []; // a link loop: linkProblem's to name
    }
  });
}

/** Refusals for read-only files, or (--force) a note that each is written anyway. */
function readOnlyCheck(o: Outcome, files: [string, number][], opts: Options): void {
  for (const [f, bits] of files) {
    const mode = bits.toString(8).padStart(4, '0');
    if (opts.force) o.notes.push(`${f} is read-only (mode ${mode}): written anyway (--force), its mode kept`);
    else
      o.problems.push(
        `${f} is read-only (mode ${mode}): left untouched; make it writable (chmod u+w) or run again with --force`,
      );
  }
}

function runCommand(ctx: InstallContext, step: CommandStep, opts: Options): string | null {
  const timeout = opts.commandTimeoutMs ?? COMMAND_TIMEOUT_MS;
  opts.progress?.(
    `running \`${shJoin(step.argv)}\` (${step.description}); waiting up to ${Math.round(timeout / 1000)} s…`,
  );
  const t0 = Date.now();
  const r = runBounded(step.argv[0]!, step.argv.slice(1), timeout, ctx.env as NodeJS.ProcessEnv);
  opts.progress?.(
    `  ${r.error || r.status !== 0 ? 'failed' : 'done'} after ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  if (r.error || r.status !== 0) {
    const why = r.error ?? `exit ${r.status}: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`;
    return `\`${shJoin(step.argv)}\` failed (${why})`;
  }
  return null;
}

/** What a harness whose installer could not even plan reports: failed, with the reason. */
function planFailed(harness: Harness, err: unknown): Outcome {
  return { harness, target: '', status: 'failed', actions: [], commands: [], problems: [errorText(err)], notes: [] };
}

type Direction = 'install' | 'uninstall';
type Body = (h: Harness, plan: HarnessPlan, o: Outcome, rec: InstallRecord) => void;

/**
 * The one loop install and uninstall share: plan each harness, refuse it whole on a link or read-only problem (one
 * harness's refusal never stops the others), else hand it to the direction's body; a throw there fails that harness
 * only, with a diagnostic. `recordedFiles` are the files the install record names, judged with the plan's own.
 */
function eachHarness(
  ctx: InstallContext,
  harnesses: Harness[],
  opts: Options,
  direction: Direction,
  body: Body,
): Outcome[] {
  const rec = readRecord(ctx.env);
  const out: Outcome[] = [];
  for (const h of harnesses) {
    let plan: HarnessPlan;
    try {
      const installer = HARNESSES[h].installer;
      plan = direction === 'install' ? installer.planInstall(ctx) : installer.planUninstall(ctx);
    } catch (err) {
      out.push(planFailed(h, err));
      continue;
    }
    const o = outcome(plan);
    out.push(o);
    const hr = direction === 'uninstall' ? rec.harnesses[h] : undefined;
    // An install refuses on the plan's own refusals too; an uninstall may still restore what the record names.
    const known = direction === 'install' ? 0 : o.problems.length;
    o.problems.push(
      ...linkRefusals(
        plan,
        [...(hr?.files ?? []), ...(hr?.touched ?? [])].map((f) => f.file),
      ),
    );
    readOnlyCheck(
      o,
      readOnlyFiles(
        plan,
        (hr?.files ?? []).map((f) => f.file),
        opts.run,
      ),
      opts,
    );
    if (o.problems.length > known) {
      o.status = 'refused';
      continue;
    }
    try {
      body(h, plan, o, rec);
    } catch (err) {
      o.status = 'failed';
      o.problems.push(errorText(err));
      diagnose('error', `${direction}:${h}`, errorText(err));
    }
    if (o.status !== 'refused' && o.status !== 'planned' && o.status !== 'unchanged') writeRecord(ctx.env, rec);
  }
  return out;
}

/** Plans and applies installs for the named harnesses. */
export function install(ctx: InstallContext, harnesses: Harness[], opts: Options): Outcome[] {
  return eachHarness(ctx, harnesses, opts, 'install', (h, plan, o, rec) => {
    if (plan.steps.length === 0) {
      o.status = 'unchanged';
      o.actions.push('already installed');
      return;
    }
    const commands = plan.steps.filter((s): s is CommandStep => s.kind === 'command');
    const edits = plan.steps.filter((s): s is FileEditStep => s.kind === 'edit');
    o.actions.push(...edits.map(fileAction), ...commands.map((c) => `run: ${shJoin(c.argv)}  (${c.description})`));
    if (opts.dryRun) {
      o.status = 'planned';
      return;
    }
    const hr: HarnessRecord = rec.harnesses[h] ?? {
      installedAt: new Date().toISOString(),
      version: ctx.version,
      pkgRoot: ctx.pkgRoot,
      files: [],
      touched: [],
      commands: [],
    };
    try {
      // A file both edited here and written by the harness's own commands (Claude Code's settings.json with
      // --statusline) is backed up before the edit, so uninstall can put back the user's bytes, not tiergate's.
      if (opts.run && commands.length && binaryFound(ctx, commands[0]!.argv[0]!))
        for (const t of commands.flatMap((c) => c.touches))
          if (edits.some((e) => e.file === t.file)) recordTouch(hr, t.file, t.format);
      for (const s of edits) applyInstallEdit(hr, s);
      if (commands.length && !opts.run) printOnce(o, commands);
      else runInstallCommands(ctx, plan, commands, hr, o, opts);
    } finally {
      // What was written before a failure is recorded all the same, so uninstall can take it back.
      if (hr.files.length || hr.touched.length) rec.harnesses[h] = hr;
    }
  });
}

function runInstallCommands(
  ctx: InstallContext,
  plan: HarnessPlan,
  commands: CommandStep[],
  hr: HarnessRecord,
  o: Outcome,
  opts: Options,
): void {
  for (const [i, c] of commands.entries()) {
    if (i === 0 && !binaryFound(ctx, c.argv[0]!)) {
      // The harness is not installed here: nothing to fail, the commands are printed for wherever it is.
      printOnce(o, commands);
      o.notes.push(
        `\`${c.argv[0]}\` is not on PATH (set TIERGATE_${plan.harness.toUpperCase()}_BIN to its path, or run these where it is installed).`,
      );
      return;
    }
    for (const t of c.touches) recordTouch(hr, t.file, t.format);
    const err = runCommand(ctx, c, opts);
    hr.commands.push(c.argv);
    if (err) {
      o.problems.push(err);
      o.status = 'failed';
      return;
    }
  }
}

/** Commands left to the user are listed once, as commands to run, not also among the actions. */
function printOnce(o: Outcome, commands: CommandStep[]): void {
  o.status = 'manual';
  o.commands = commands.map((c) => c.argv);
  o.actions = o.actions.filter((a) => !a.startsWith('run: '));
}

/** The folders above `file` that do not exist yet, outermost first: install is about to create them. */
function missingDirs(file: string): string[] {
  const out: string[] = [];
  for (let d = dirname(file); !existsSync(d) && dirname(d) !== d; d = dirname(d)) out.unshift(d);
  return out;
}

function applyInstallEdit(hr: HarnessRecord, s: FileEditStep): void {
  if (s.after === null) throw new Error(`internal: install step for ${s.file} deletes it`);
  const existing = hr.files.find((f) => f.file === s.file);
  // The first install's backup is the user's original: a re-install never overwrites it.
  const backup = existing ? existing.backup : s.before === null ? null : backUp(s.file);
  const created = missingDirs(s.file);
  if (created.length) hr.dirs = [...(hr.dirs ?? []), ...created.filter((d) => !hr.dirs?.includes(d))];
  writeKeepingMode(s.file, s.after);
  if (readText(s.file) !== s.after) throw new Error(`${s.file}: read back differs from what was written`);
  if (existing) {
    existing.afterSha = sha256(s.after);
    existing.undo.push(...s.undo);
  } else {
    hr.files.push({
      file: s.file,
      existedBefore: s.before !== null,
      beforeSha: s.before === null ? null : sha256(s.before),
      afterSha: sha256(s.after),
      backup,
      undo: s.undo,
      emptyTextWhenAbsent: s.emptyTextWhenAbsent,
    });
  }
}

function recordTouch(hr: HarnessRecord, file: string, format: 'json' | 'toml'): void {
  if (hr.touched.some((t) => t.file === file)) return;
  const text = readText(file);
  hr.touched.push({
    file,
    format,
    existedBefore: text !== null,
    beforeSha: text === null ? null : sha256(text),
    backup: text === null ? null : backUp(file),
  });
}

/** The text a recorded file goes back to: the backup's bytes when nothing else changed it, else tiergate's entries removed. */
export function restoredText(f: FileRecord, current: string): { text: string | null; how: string } {
  if (sha256(current) === f.afterSha) {
    if (!f.existedBefore)
      return {
        text: f.emptyTextWhenAbsent,
        how:
          f.emptyTextWhenAbsent === null
            ? 'delete (tiergate created it)'
            : 'reset to empty hooks (tiergate created it)',
      };
    const bak = f.backup ? readText(f.backup) : null;
    if (bak !== null && sha256(bak) === f.beforeSha) return { text: bak, how: 'restore the backup byte for byte' };
  }
  return { text: applyUndo(current, f.undo), how: "remove tiergate's entries (the file changed since install)" };
}

export function uninstall(ctx: InstallContext, harnesses: Harness[], opts: Options): Outcome[] {
  return eachHarness(ctx, harnesses, opts, 'uninstall', (h, plan, o, rec) => {
    const hr = rec.harnesses[h];
    // A recorded file is put back from the record; the structural plan (its steps and its notes, which start with
    // the file's path) covers files tiergate has no record of.
    const isRecorded = (file: string) => !!hr?.files.some((f) => f.file === file);
    o.notes = o.notes.filter((n) => !hr?.files.some((f) => n.startsWith(`${f.file} `)));
    const edits: FileEditStep[] = plan.steps.filter((s): s is FileEditStep => s.kind === 'edit' && !isRecorded(s.file));
    const recorded: { f: FileRecord; current: string; text: string | null; how: string }[] = [];
    for (const f of hr?.files ?? []) {
      const current = readText(f.file);
      if (current === null) continue;
      const r = restoredText(f, current);
      if (r.text !== current) recorded.push({ f, current, ...r });
      // A whole file tiergate wrote (no entries to take out) that someone changed since: theirs now.
      else if (f.undo.length === 0 && sha256(current) !== f.afterSha)
        o.notes.push(`${f.file} changed since install: left as it is`);
    }
    const commands = plan.steps.filter((s): s is CommandStep => s.kind === 'command');
    if (plan.refused.length && !recorded.length && !commands.length) {
      o.status = 'refused';
      return;
    }
    o.actions.push(
      ...edits.map(fileAction),
      ...recorded.map((r) => `${r.f.file}: ${r.how}`),
      ...commands.map((c) => `run: ${shJoin(c.argv)}  (${c.description})`),
    );
    if (!o.actions.length) {
      o.actions.push('not installed');
      if (hr) delete rec.harnesses[h];
      // 'unchanged' skips the record write; a stale entry just dropped is written here (not on a dry run).
      o.status = 'unchanged';
      if (!opts.dryRun && hr) writeRecord(ctx.env, rec);
      return;
    }
    if (opts.dryRun) {
      o.status = 'planned';
      return;
    }
    for (const s of edits) writeOrDelete(s.file, s.after);
    for (const r of recorded) writeOrDelete(r.f.file, r.text);
    if (commands.length && !opts.run) {
      printOnce(o, commands);
    } else {
      for (const c of commands) {
        const err = runCommand(ctx, c, opts);
        if (err) {
          o.problems.push(err);
          o.status = 'failed';
          break;
        }
      }
      if (o.status !== 'failed') for (const t of hr?.touched ?? []) o.actions.push(restoreTouched(ctx, h, t));
      if (o.status !== 'failed' && commands.length)
        for (const l of HARNESSES[h].installer.leftovers?.(ctx) ?? [])
          if (removeNoFollow(l.dir)) {
            o.actions.push(`${l.dir}: removed (${l.what})`);
            removeEmptyDir(dirname(l.dir));
          }
    }
    if (commands.length && !opts.run)
      for (const l of HARNESSES[h].installer.leftovers?.(ctx) ?? [])
        if (existsSync(l.dir)) o.notes.push(`after those commands, delete ${l.dir} (${l.what})`);
    if (o.status === 'done' && hr) {
      for (const f of hr.files) if (f.backup) removeFile(f.backup);
      for (const t of hr.touched) if (t.backup) removeFile(t.backup);
      // The folders install created, deepest first, each only if nothing else is in it now.
      for (const d of [...(hr.dirs ?? [])].reverse())
        if (removeEmptyDir(d)) o.actions.push(`${d}: removed (install created it)`);
      delete rec.harnesses[h];
    }
  });
}

function writeOrDelete(file: string, text: string | null): void {
  if (text === null) removeFile(file);
  else writeKeepingMode(file, text);
}

/**
 * After the harness's own uninstall: put the file back to the backed-up bytes when what is left differs only by
 * empty residue (Claude Code 2.1.328 re-serialises settings.json and leaves empty `enabledPlugins` /
 * `extraKnownMarketplaces`); first the harness's installer takes out what its commands left of tiergate (tidyTouched:
 * Codex's own tables).
 */
function restoreTouched(ctx: InstallContext, h: Harness, t: TouchRecord): string {
  let current = readText(t.file);
  if (current === null) return `${t.file}: absent`;
  const tidy = HARNESSES[h].installer.tidyTouched;
  if (tidy) current = tidy(ctx, t.format, current);
  const bak = t.backup ? readText(t.backup) : null;
  if (t.existedBefore && (bak === null || sha256(bak) !== t.beforeSha))
    return `${t.file}: backup missing or changed; left as the harness wrote it`;
  const parse = (s: string): unknown => {
    const p = t.format === 'json' ? parseJsonText(s) : parseTomlText(s);
    return p.ok ? (p.value ?? {}) : Symbol('unparseable');
  };
  const now = parse(current);
  const before = bak === null ? {} : parse(bak);
  if (onlyEmptyResidue(now, before)) {
    // Compared with the file, not with `current`: the tables taken out above exist only in `current` so far.
    if (bak === null) removeFile(t.file);
    else if (readText(t.file) !== bak) writeKeepingMode(t.file, bak);
    return `${t.file}: ${bak === null ? 'removed (it did not exist before)' : 'back to its original bytes'}`;
  }
  if (current !== readText(t.file)) writeKeepingMode(t.file, current);
  return `${t.file}: kept (changed by something other than tiergate since install)`;
}

/**
 * Per harness: is tiergate installed, from where, and do the installed plugin files match this version. A harness
 * without tiergate is information, not an error; a half install, a stale copy or an unreadable config is an error.
 * Each harness's checks are its own (src/adapters/<harness>/doctor.ts, HarnessModule.doctor); one that throws is
 * one error row, and the others still run. Over them, what only the whole picture tells: a harness whose install
 * record points at a package directory that is gone (moved or deleted) is broken, whatever its own check could still
 * see; `tiergate install <h>` is suggested only for a harness on this machine; and a package directory that will not
 * stay (a temp dir, a checkout) gets install's warning again.
 */
import { existsSync } from 'node:fs';
import { sep } from 'node:path';
import { harnessList } from '../adapters/index.js';
import type { HarnessModule } from '../adapters/harness-module.js';
import type { Harness } from '../contracts/harness.js';
import { paths } from '../io/paths.js';
import type { InstallContext } from '../install/plan.js';
import { readRecord, type HarnessRecord } from '../install/record.js';
import { transientWarning } from '../install/transient.js';
import type { Check } from './check.js';

/** Whether a harness is on this machine (cli/install/detect.ts, as `install --all` decides it), and why not. */
export type Presence = (h: Harness) => { found: true } | { found: false; why: string };

export function checkHarnesses(ctx: InstallContext, presence?: Presence): Check[] {
  const record = readRecord(ctx.env);
  const rows = harnessList().flatMap((m) =>
    m.doctor.map((f) => {
      const c = runOne(ctx, f);
      if (c.name !== m.id) return c;
      return broken(ctx, m, c, record.harnesses[m.id]) ?? absent(m, c, presence);
    }),
  );
  return [...packageDir(ctx), ...rows];
}

function runOne(ctx: InstallContext, f: (ctx: InstallContext) => Check): Check {
  try {
    return f(ctx);
  } catch (err) {
    return {
      section: 'harness',
      name: f.name.replace(/^check/, '').toLowerCase(),
      status: 'error',
      detail: `check failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

/**
 * The record says tiergate was installed into the harness from a directory that no longer exists: its hooks run a
 * missing file (pi and OpenCode no longer recognise the entry as tiergate's and saw "not installed"; Copilot only a
 * different folder). A check that says ok stays: Claude Code and Codex run their own copy of the plugin. Files written
 * only into the data dir (Gemini's extension before `gemini extensions install` ran) are no install yet.
 */
function broken(ctx: InstallContext, m: HarnessModule, c: Check, rec: HarnessRecord | undefined): Check | null {
  if (!rec || c.status === 'ok' || existsSync(rec.pkgRoot)) return null;
  const data = paths(ctx.env).data;
  const intoHarness = rec.commands.length > 0 || rec.files.some((f) => !f.file.startsWith(`${data}${sep}`));
  if (!intoHarness) return null;
  const fix = `tiergate install ${m.id}`;
  // Its own check saw the missing file already (Cursor, Grok): it gets the fix, if it does not give one.
  if (c.status === 'error')
    return c.detail.includes(fix)
      ? null
      : { ...c, detail: `${c.detail}. Fix: ${fix} (from this package, ${ctx.pkgRoot})` };
  return {
    ...c,
    status: 'error',
    detail:
      `installed from ${rec.pkgRoot}, which no longer exists (moved or deleted): ${m.name} runs no tiergate hook. ` +
      `Fix: ${fix} (from this package, ${ctx.pkgRoot})`,
    data: { ...(c.data ?? {}), recordedPkgRoot: rec.pkgRoot },
  };
}

/** "not installed; run: tiergate install X" for a harness that is not on this machine says that instead. */
function absent(m: HarnessModule, c: Check, presence: Presence | undefined): Check {
  const hint = `run: tiergate install ${m.id}`;
  if (!presence || c.status !== 'info' || !c.detail.includes(hint)) return c;
  const p = presence(m.id);
  if (p.found) return c;
  return {
    ...c,
    detail: c.detail.replace(hint, `${m.name} is not on this machine (${p.why.replace(/^not found: /, '')})`),
  };
}

/** Install's warning about a package directory that does not stay, repeated where a user looks when something broke. */
function packageDir(ctx: InstallContext): Check[] {
  const warning = transientWarning(ctx.pkgRoot, ctx.env);
  if (!warning) return [];
  return [
    {
      section: 'harness',
      name: 'package dir',
      status: 'warn',
      detail: warning.replace(
        /^warning: the harnesses will load tiergate from/,
        'harnesses installed from here load tiergate from',
      ),
      data: { pkgRoot: ctx.pkgRoot },
    },
  ];
}

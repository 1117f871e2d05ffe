/**
 * A harness's interactive terminal UI driven through tmux (a real terminal emulator: the TUIs query the terminal and
 * wait for its answers, which a bare pty never gives). Each run gets its own tmux server on its own socket
 * (`-L`, no user config), started with exactly the environment given, and killed at close. Used where only the
 * interactive UI shows what is tested: a hook's permission prompt (issue 33 item 3).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { missing } from '../../support/ci.js';

export type TmuxCheck = { ok: true } | { ok: false; reason: string };

/** Whether tmux runs here; under CI a missing tmux fails the suite (test/support/ci.ts). */
export function tmuxAvailable(): TmuxCheck {
  const r = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  if (r.status === 0) return { ok: true };
  const reason = r.error ? r.error.message : `tmux -V exited ${r.status}: ${r.stderr}`;
  missing('[e2e] tmux', reason);
  return { ok: false, reason };
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export type TmuxRun = {
  /** The screen as text, box-drawing bars dropped and runs of blanks collapsed, so wrapped text reads as one line. */
  screen(): string;
  /** Polls the screen until `re` matches it; throws with the last screen after `ms`. */
  waitFor(re: RegExp, ms?: number): Promise<string>;
  /** tmux send-keys: key names (`Enter`, `Escape`, `Down`) or literal text. */
  keys(...keys: string[]): void;
  /** Kills the server, then waits (<= 10 s) until the program in the pane has exited: a TUI killed by SIGHUP can go on
   * writing its home folder for a moment, and a sandbox removed under it fails with ENOTEMPTY (seen in CI). */
  close(): Promise<void>;
};

let seq = 0;

/** The processes of the terminal session `sid` (the pane's program is its leader; Copilot 1.0.102's loader starts the
 * CLI as a child, so the leader alone is not enough), from /proc/<pid>/stat's 6th field. Linux only, as the e2e run. */
function sessionMembers(sid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces) start after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[3]) === sid && fields[0] !== 'Z') out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export function startTmux(
  argv: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; cols?: number; rows?: number },
): TmuxRun {
  const socket = `tg-e2e-${process.pid}-${++seq}`;
  const tmux = (args: string[]) =>
    spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { cwd: opts.cwd, env: opts.env, encoding: 'utf8' });
  const started = tmux([
    'new-session',
    '-d',
    '-s',
    'e2e',
    '-x',
    String(opts.cols ?? 300),
    '-y',
    String(opts.rows ?? 60),
    '-c',
    opts.cwd,
    argv.map(quote).join(' '),
  ]);
  if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
  const panePid = Number(tmux(['list-panes', '-t', 'e2e', '-F', '#{pane_pid}']).stdout.trim());
  const screen = () =>
    (tmux(['capture-pane', '-p', '-t', 'e2e']).stdout ?? '')
      .replace(/[│╭╮╰╯─╌]/g, ' ')
      .replace(/[ \t]+/g, ' ')
      .replace(/\n /g, '\n');
  return {
    screen,
    async waitFor(re, ms = 60_000) {
      const end = Date.now() + ms;
      let last = '';
      while (Date.now() < end) {
        last = screen();
        if (re.test(last.replace(/\n/g, ' '))) return last;
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`screen never matched ${re} within ${ms} ms; last screen:\n${last}`);
    },
    keys: (...keys) => {
      tmux(['send-keys', '-t', 'e2e', ...keys]);
    },
    close: async () => {
      tmux(['kill-server']);
      // kill-server leaves the socket file behind (tmux 3.3a, seen).
      rmSync(join(opts.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
      if (!(panePid > 0)) return;
      const end = Date.now() + 10_000;
      while (sessionMembers(panePid).length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
      for (const pid of sessionMembers(panePid)) process.kill(pid, 'SIGKILL');
    },
  };
}

/** Polls `ok` until it holds; throws after `ms`. What a TUI run waits on outside the screen (the fake API's requests). */
export async function until(ok: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

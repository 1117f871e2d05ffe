/**
 * The Claude Code plugin manifest's PreToolUse guards (hooks.json), run through bash as Claude Code runs a command hook:
 * which tool calls start node, under each state the hooks module leaves in the session's environment
 * (TIERGATE_MODULE_LIVE at session start, TIERGATE_CHILD_STOP under budgets.action "stop", TIERGATE_ASK under an ask
 * policy in an attended session; src/adapters/claude/module/index.ts). A fake `node` first on PATH records each start.
 *
 * - module not live: every tool call starts node once (the command hooks decide dispatches and stop children);
 * - module live, child-stop armed: every tool call once (a child's Read or Bash is checked);
 * - module live, ask armed only: an Agent/Task call once (the command hook asks), a Read or Bash none;
 * - module live, neither: none. A dispatch never starts node twice (the two entries never both start it), and a guard
 *   that starts nothing exits 0 (a non-zero exit is a hook error in the transcript).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
type Entry = { matcher?: string; hooks: { command: string }[] };
const entries = (JSON.parse(readFileSync(join(root, 'hooks.json'), 'utf8')) as { hooks: { PreToolUse: Entry[] } }).hooks
  .PreToolUse;

// A plugin root with a space and a quote in it: every path in the commands must be quoted.
const dir = mkdtempSync(join(tmpdir(), 'tg-manifest-'));
const pluginRoot = join(dir, "plug in's root");
const bin = join(dir, 'bin');
const starts = join(dir, 'starts.log');
mkdirSync(bin, { recursive: true });
mkdirSync(pluginRoot, { recursive: true });
writeFileSync(join(bin, 'node'), `#!/bin/sh\nprintf '%s\\n' "$2" >> "${starts}"\nexit 0\n`);
chmodSync(join(bin, 'node'), 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Claude Code's matcher: `*` or empty for every tool, else a regular expression over the tool name. */
const matches = (m: string | undefined, tool: string) => (!m || m === '*' ? true : new RegExp(`^(?:${m})$`).test(tool));

/** Runs every PreToolUse command matching `tool` through bash; the node starts (their hook.cjs path) and exit codes. */
function toolCall(tool: string, state: Record<string, string>) {
  rmSync(starts, { force: true });
  const codes: number[] = [];
  for (const e of entries.filter((x) => matches(x.matcher, tool)))
    for (const h of e.hooks) {
      const r = spawnSync('bash', ['-c', h.command], {
        env: { PATH: `${bin}:/usr/bin:/bin`, CLAUDE_PLUGIN_ROOT: pluginRoot, ...state },
        encoding: 'utf8',
      });
      codes.push(r.status ?? -1);
    }
  const started = existsSync(starts) ? readFileSync(starts, 'utf8').trim().split('\n') : [];
  return { started, codes };
}

const LIVE = { TIERGATE_MODULE_LIVE: '1' };
const CASES: { state: Record<string, string>; name: string; starts: Record<string, number> }[] = [
  { name: 'module not live', state: {}, starts: { Read: 1, Bash: 1, Agent: 1, Task: 1 } },
  { name: 'module not live, ask set', state: { TIERGATE_ASK: '1' }, starts: { Read: 1, Agent: 1 } },
  { name: 'module live', state: LIVE, starts: { Read: 0, Bash: 0, Agent: 0, Task: 0 } },
  {
    name: 'module live, child-stop armed',
    state: { ...LIVE, TIERGATE_CHILD_STOP: '1' },
    starts: { Read: 1, Bash: 1, Agent: 1 },
  },
  {
    name: 'module live, ask armed',
    state: { ...LIVE, TIERGATE_ASK: '1' },
    starts: { Read: 0, Bash: 0, Agent: 1, Task: 1 },
  },
  {
    name: 'module live, ask and child-stop armed',
    state: { ...LIVE, TIERGATE_ASK: '1', TIERGATE_CHILD_STOP: '1' },
    starts: { Read: 1, Bash: 1, Agent: 1, Task: 1 },
  },
];

describe('hooks.json PreToolUse guards (through bash)', () => {
  for (const c of CASES)
    for (const [tool, n] of Object.entries(c.starts))
      it(`${c.name}: a ${tool} call starts node ${n} time(s)`, () => {
        const r = toolCall(tool, c.state);
        expect(r.started).toHaveLength(n);
        for (const p of r.started) expect(p).toBe(join(pluginRoot, 'dist/hook.cjs'));
        expect(r.codes.every((x) => x === 0)).toBe(true);
      });

  it('the Agent|Task entry is the only one besides `*`, and names the dispatch tools the command hook decides', () => {
    expect(entries.map((e) => e.matcher)).toEqual(['*', 'Agent|Task']);
  });
});

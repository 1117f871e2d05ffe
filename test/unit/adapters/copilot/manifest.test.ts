/**
 * What Copilot CLI loads: the plugin manifest (.plugin/plugin.json) naming hooks-copilot.json, whose every command exits
 * 0 whatever happens to tiergate (Copilot CLI 1.0.102 takes a hook's exit 1 as a denial, seen), run here through bash as
 * Copilot runs it. The shipped dist/ is used (npm run build first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DEADLINE_MS } from '../../../../src/hook-runner/core.js';
import { DISPATCH_EVENTS } from '../../../../src/descriptors/index.js';
import { bundleFor as bundleForEvents } from '../../../../src/hook-runner/bundles.js';
import { fixture } from './support.js';

/** dist/hook.cjs's choice, with the table src/entries/hook.ts hands it. */
const bundleFor = (harness: string, event: string) => bundleForEvents(DISPATCH_EVENTS, harness, event);

const root = join(import.meta.dirname, '../../../..');
const read = (f: string) => JSON.parse(readFileSync(join(root, f), 'utf8'));
const hooks = read('hooks-copilot.json') as {
  version: number;
  hooks: Record<string, Entry[]>;
};
type Entry = { type: string; bash: string; env?: Record<string, string>; timeoutSec: number };

/**
 * One manifest entry as Copilot CLI 1.0.102 runs a plugin's hook (seen): `${PLUGIN_ROOT}` pasted into the command and
 * the `env` values as text, PLUGIN_ROOT / COPILOT_PLUGIN_ROOT / CLAUDE_PLUGIN_ROOT set, the plugin root as cwd, bash -c.
 */
function runCommand(entry: Entry, pluginRoot: string, stdin: string, extra: Record<string, string> = {}) {
  const paste = (s: string) => s.replaceAll('${PLUGIN_ROOT}', pluginRoot);
  const home = mkdtempSync(join(tmpdir(), 'tg-copilot-m-'));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    PLUGIN_ROOT: pluginRoot,
    COPILOT_PLUGIN_ROOT: pluginRoot,
    CLAUDE_PLUGIN_ROOT: pluginRoot,
    TIERGATE_PRICE_REFRESH: 'off',
    TIERGATE_HOME: join(home, 'tg'),
    ...extra,
    ...Object.fromEntries(Object.entries(entry.env ?? {}).map(([k, v]) => [k, paste(v)])),
  };
  return spawnSync('bash', ['-c', paste(entry.bash)], {
    input: stdin,
    encoding: 'utf8',
    env,
    cwd: existsSync(pluginRoot) ? pluginRoot : tmpdir(),
    timeout: 20_000,
  });
}

describe('copilot plugin manifest', () => {
  it('.plugin/plugin.json names hooks-copilot.json and carries the package version; both ship', () => {
    const pkg = read('package.json');
    expect(read('.plugin/plugin.json')).toMatchObject({
      name: 'tiergate',
      version: pkg.version,
      hooks: 'hooks-copilot.json',
    });
    expect(pkg.files).toEqual(expect.arrayContaining(['.plugin/', 'hooks-copilot.json']));
  });

  it("camelCase events, each running dist/hook.cjs for copilot, ending in `|| true`, timed out after the runner's deadline", () => {
    expect(hooks.version).toBe(1);
    expect(Object.keys(hooks.hooks).sort()).toEqual(['preToolUse', 'sessionEnd', 'sessionStart', 'subagentStop']);
    for (const [event, [entry, ...rest]] of Object.entries(hooks.hooks)) {
      expect(rest).toEqual([]);
      expect(entry!.type).toBe('command');
      expect(entry!.bash).toBe(
        `node --preserve-symlinks-main "$TIERGATE_PLUGIN_ROOT/dist/hook.cjs" copilot ${event} || true`,
      );
      expect(entry!.env).toEqual({ TIERGATE_PLUGIN_ROOT: '${PLUGIN_ROOT}' });
      expect(entry!.timeoutSec * 1000).toBeGreaterThan(DEFAULT_DEADLINE_MS);
    }
  });

  it('no command holds a `${…}` placeholder Copilot would paste into shell syntax', () => {
    for (const [entry] of Object.values(hooks.hooks)) expect(entry!.bash).not.toMatch(/\$\{[A-Z_]*\}/);
  });

  it('preToolUse runs the copilot dispatch bundle; every other event the events bundle', () => {
    expect(bundleFor('copilot', 'preToolUse')).toBe('hook-dispatch-copilot');
    for (const e of ['subagentStop', 'sessionStart', 'sessionEnd']) expect(bundleFor('copilot', e)).toBe('hook-events');
  });

  it('a missing bundle (a broken install) exits 0 with nothing on stdout', () => {
    const r = runCommand(
      hooks.hooks.preToolUse![0]!,
      '/nonexistent/tiergate',
      JSON.stringify(fixture('preToolUse.basic-task.json').payload),
    );
    expect(r.stderr).toMatch(/Cannot find module/);
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 0, stdout: '' });
  });

  it.skipIf(!existsSync(join(root, 'dist/hook.cjs')))(
    'the built hook: another tool, a malformed payload, bad JSON: exit 0, no output',
    () => {
      const cmd = hooks.hooks.preToolUse![0]!;
      for (const stdin of [
        JSON.stringify({ ...fixture('preToolUse.basic-task.json').payload, toolName: 'bash' }),
        JSON.stringify({ toolName: 'task', toolArgs: 7 }),
        '{"toolName": "task", not json',
      ]) {
        const r = runCommand(cmd, root, stdin);
        expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 0, stdout: '' });
      }
    },
  );

  it.skipIf(!existsSync(join(root, 'dist/hook.cjs')))(
    'a package path holding $(…), a backtick, ; and ": nothing in it runs, every event exits 0 and the hook answers',
    () => {
      const base = mkdtempSync(join(tmpdir(), 'tg-copilot-path-'));
      const marks = mkdtempSync(join(tmpdir(), 'tg-copilot-marks-'));
      const hostile = join(base, `pkg $(touch ${marks}/SUB) \`touch ${marks}/BT\`; touch ${marks}/SEMI " q`);
      mkdirSync(dirname(hostile), { recursive: true });
      symlinkSync(root, hostile);
      const debug = join(mkdtempSync(join(tmpdir(), 'tg-copilot-dbg-')), 'stdin.jsonl');
      const payload = JSON.stringify(fixture('preToolUse.basic-task.json').payload);
      for (const [event, [entry]] of Object.entries(hooks.hooks)) {
        const r = runCommand(entry!, hostile, payload, { TIERGATE_HOOK_DEBUG: debug });
        expect({ event, status: r.status, stderr: r.stderr }).toEqual({ event, status: 0, stderr: '' });
      }
      // tiergate's hook itself ran, from that path, for every event (its debug record of each stdin).
      const ran = readFileSync(debug, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).event as string);
      expect(ran.sort()).toEqual(Object.keys(hooks.hooks).sort());
      expect(readdirSync(marks)).toEqual([]);
    },
  );
});

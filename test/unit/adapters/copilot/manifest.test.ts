/**
 * What Copilot CLI loads: the plugin manifest (.plugin/plugin.json) naming hooks-copilot.json, whose every command exits
 * 0 whatever happens to tiergate (Copilot CLI 1.0.102 takes a hook's exit 1 as a denial, seen), run here through bash as
 * Copilot runs it. The shipped dist/ is used (npm run build first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DEADLINE_MS } from '../../../../src/hook-runner/core.js';
import { DISPATCH_EVENTS } from '../../../../src/adapters/descriptors.js';
import { bundleFor as bundleForEvents } from '../../../../src/hook-runner/bundles.js';
import { fixture } from './support.js';

/** dist/hook.cjs's choice, with the table src/entries/hook.ts hands it. */
const bundleFor = (harness: string, event: string) => bundleForEvents(DISPATCH_EVENTS, harness, event);

const root = join(import.meta.dirname, '../../../..');
const read = (f: string) => JSON.parse(readFileSync(join(root, f), 'utf8'));
const hooks = read('hooks-copilot.json') as {
  version: number;
  hooks: Record<string, { type: string; bash: string; timeoutSec: number }[]>;
};

/** One manifest command through bash, as Copilot runs it (PLUGIN_ROOT set for a plugin's hooks, seen). */
function runCommand(command: string, pluginRoot: string, stdin: string) {
  const env = {
    PATH: process.env.PATH,
    HOME: mkdtempSync(join(tmpdir(), 'tg-copilot-m-')),
    PLUGIN_ROOT: pluginRoot,
    TIERGATE_PRICE_REFRESH: 'off',
  };
  return spawnSync('bash', ['-c', command], {
    input: stdin,
    encoding: 'utf8',
    env: { ...env, TIERGATE_HOME: join(env.HOME, 'tg') },
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
        `node --preserve-symlinks-main "\${PLUGIN_ROOT}/dist/hook.cjs" copilot ${event} || true`,
      );
      expect(entry!.timeoutSec * 1000).toBeGreaterThan(DEFAULT_DEADLINE_MS);
    }
  });

  it('preToolUse runs the copilot dispatch bundle; every other event the events bundle', () => {
    expect(bundleFor('copilot', 'preToolUse')).toBe('hook-dispatch-copilot');
    for (const e of ['subagentStop', 'sessionStart', 'sessionEnd']) expect(bundleFor('copilot', e)).toBe('hook-events');
  });

  it('a missing bundle (a broken install) exits 0 with nothing on stdout', () => {
    const r = runCommand(
      hooks.hooks.preToolUse![0]!.bash,
      '/nonexistent/tiergate',
      JSON.stringify(fixture('preToolUse.basic-task.json').payload),
    );
    expect(r.stderr).toMatch(/Cannot find module/);
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 0, stdout: '' });
  });

  it.skipIf(!existsSync(join(root, 'dist/hook.cjs')))(
    'the built hook: another tool, a malformed payload, bad JSON: exit 0, no output',
    () => {
      const cmd = hooks.hooks.preToolUse![0]!.bash;
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
});

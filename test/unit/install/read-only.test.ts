/**
 * A settings file the user made read-only (chmod 0444) is how a config is pinned: install and uninstall refuse the
 * harness with a line naming the file and --force, write nothing of it, and run none of its commands; with --force
 * the file is written and keeps its mode. Before, the atomic rename replaced it without a word (always as root, and
 * the tests may run as root: the mode bits, not access(2), are what is judged).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../../../src/contracts/harness.js';
import { install, uninstall } from '../../../src/cli/install/apply.js';
import type { InstallContext } from '../../../src/install/plan.js';
import { sandbox, snapshot } from './support.js';

const cases: { harness: Harness; file: (ctx: InstallContext) => string; text: string; mark: string }[] = [
  {
    harness: 'opencode',
    file: (ctx) => join(ctx.env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'),
    text: '{\n  "plugin": ["other"]\n}\n',
    mark: 'dist/opencode.js',
  },
  {
    harness: 'cursor',
    file: (ctx) => join(ctx.home, '.cursor', 'hooks.json'),
    text: '{\n\t"version": 1,\n\t"hooks": { "stop": [ { "command": "./mine.sh" } ] }\n}\n',
    mark: 'dist/hook.cjs',
  },
  {
    harness: 'pi',
    file: (ctx) => join(ctx.home, '.pi', 'agent', 'settings.json'),
    text: '{ "defaultProvider": "fake" }',
    mark: 'tiergate',
  },
];

function readOnlyFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, 0o444);
}

describe.each(cases)('$harness: a read-only config file', (c) => {
  it('install (and its dry run) is refused naming the file and --force; nothing is written', () => {
    const { ctx, root } = sandbox();
    const file = c.file(ctx);
    readOnlyFile(file, c.text);
    const before = snapshot(join(root, 'home'));
    for (const dryRun of [true, false]) {
      const [o] = install(ctx, [c.harness], { dryRun, run: false });
      expect(o!.status).toBe('refused');
      expect(o!.problems).toEqual([
        `${file} is read-only (mode 0444): left untouched; make it writable (chmod u+w) or run again with --force`,
      ]);
    }
    expect(snapshot(join(root, 'home'))).toEqual(before);
    expect(statSync(file).mode & 0o777).toBe(0o444);
  });

  it('--force writes it and keeps its mode; uninstall is refused again without --force, restores with it', () => {
    const { ctx } = sandbox();
    const file = c.file(ctx);
    readOnlyFile(file, c.text);
    const [o] = install(ctx, [c.harness], { dryRun: false, run: false, force: true });
    expect(o!.status, o!.problems.join('; ')).toBe('done');
    expect(o!.notes.join('\n')).toContain(`${file} is read-only (mode 0444): written anyway (--force), its mode kept`);
    expect(readFileSync(file, 'utf8')).toContain(c.mark === 'tiergate' ? ctx.pkgRoot : c.mark);
    expect(statSync(file).mode & 0o777).toBe(0o444);

    const written = readFileSync(file, 'utf8');
    const [refused] = uninstall(ctx, [c.harness], { dryRun: false, run: false });
    expect(refused!.status).toBe('refused');
    expect(refused!.problems.join('\n')).toContain(`${file} is read-only (mode 0444)`);
    expect(readFileSync(file, 'utf8')).toBe(written);

    const [un] = uninstall(ctx, [c.harness], { dryRun: false, run: false, force: true });
    expect(un!.status, un!.problems.join('; ')).toBe('done');
    expect(readFileSync(file, 'utf8')).toBe(c.text);
    expect(statSync(file).mode & 0o777).toBe(0o444);
  });
});

describe("a read-only file a harness's own command would write (--run)", () => {
  it("Claude Code's settings.json read-only: refused before `claude plugin …` runs; printed mode is not refused", () => {
    const { ctx, root } = sandbox();
    const calls = join(root, 'claude-calls');
    const fake = join(root, 'bin', 'claude');
    mkdirSync(dirname(fake), { recursive: true });
    writeFileSync(fake, `#!/bin/sh\necho "$@" >> '${calls}'\n`, { mode: 0o755 });
    ctx.env.TIERGATE_CLAUDE_BIN = fake;
    const settings = join(ctx.home, '.claude', 'settings.json');
    readOnlyFile(settings, '{ "theme": "dark" }\n');
    const [o] = install(ctx, ['claude'], { dryRun: false, run: true });
    expect(o!.status).toBe('refused');
    expect(o!.problems.join('\n')).toContain(`${settings} is read-only (mode 0444)`);
    expect(existsSync(calls)).toBe(false);
    // Printed, not run: the user runs Claude Code's commands, tiergate writes nothing.
    expect(install(ctx, ['claude'], { dryRun: false, run: false })[0]!.status).toBe('manual');
  });
});

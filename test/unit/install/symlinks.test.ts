/**
 * A user's config file kept in a dotfiles repository and linked into place (issue 22, item 8): install and uninstall
 * edit the file the link points to and keep the link; a link that resolves nowhere is refused with nothing changed.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../../../src/contracts/harness.js';
import { install, uninstall } from '../../../src/cli/install/apply.js';
import type { InstallContext } from '../../../src/install/plan.js';
import { sandbox } from './support.js';

const run = { dryRun: false, run: false };

/** `file` as a relative link (as GNU stow makes them) to `<root>/dotfiles/<name>` holding `text`. */
function linkedFile(root: string, file: string, name: string, text: string): string {
  const target = join(root, 'dotfiles', name);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  chmodSync(target, 0o640);
  mkdirSync(dirname(file), { recursive: true });
  symlinkSync(relative(dirname(file), target), file);
  return target;
}

const cases: { harness: Harness; file: (ctx: InstallContext) => string; text: string; mark: string }[] = [
  {
    harness: 'opencode',
    file: (ctx) => join(ctx.env.XDG_CONFIG_HOME!, 'opencode', 'opencode.jsonc'),
    text: '// mine\n{\n  "plugin": ["other"], // keep\n}\n',
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

describe.each(cases)('$harness: a symlinked config file', (c) => {
  it("install edits the link's target and keeps the link; uninstall restores the target byte for byte", () => {
    const { ctx, root } = sandbox();
    const file = c.file(ctx);
    const target = linkedFile(root, file, `${c.harness}-config`, c.text);
    const link = readlinkSync(file);

    const [ins] = install(ctx, [c.harness], run);
    expect(ins!.status, ins!.problems.join('; ')).toBe('done');
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(readlinkSync(file)).toBe(link);
    expect(readFileSync(target, 'utf8')).toContain(c.mark);
    expect(readFileSync(target, 'utf8')).toContain(c.harness === 'pi' ? '"defaultProvider": "fake"' : 'mine');
    expect(lstatSync(target).mode & 0o777).toBe(0o640);
    // Nothing left in the dotfiles repo but the file itself (no temp file, no backup there).
    expect(readdirSync(dirname(target))).toEqual([`${c.harness}-config`]);

    const [un] = uninstall(ctx, [c.harness], run);
    expect(un!.status, un!.problems.join('; ')).toBe('done');
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(readlinkSync(file)).toBe(link);
    expect(readFileSync(target, 'latin1')).toBe(Buffer.from(c.text).toString('latin1'));
    expect(existsSync(`${file}.tiergate-backup`)).toBe(false);
  });

  it("a file changed after install, through a chain of two links: uninstall takes out only tiergate's entries", () => {
    const { ctx, root } = sandbox();
    const file = c.file(ctx);
    const target = linkedFile(root, join(root, 'middle', 'link'), `${c.harness}-config`, c.text);
    mkdirSync(dirname(file), { recursive: true });
    symlinkSync(join(root, 'middle', 'link'), file);
    install(ctx, [c.harness], run);
    writeFileSync(target, `${readFileSync(target, 'utf8')}\n`);
    expect(uninstall(ctx, [c.harness], run)[0]!.status).toBe('done');
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(root, 'middle', 'link')).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).not.toContain(c.mark === 'tiergate' ? ctx.pkgRoot : c.mark);
  });
});

describe('a symlink that resolves nowhere is refused, and nothing changes', () => {
  const opencodeDir = (ctx: InstallContext) => join(ctx.env.XDG_CONFIG_HOME!, 'opencode');
  const listing = (dir: string) =>
    readdirSync(dir).map((n) => [n, lstatSync(join(dir, n)).isSymbolicLink() ? readlinkSync(join(dir, n)) : 'file']);

  it.each([
    [
      'a loop',
      (dir: string) => {
        symlinkSync('b.jsonc', join(dir, 'opencode.jsonc'));
        symlinkSync('opencode.jsonc', join(dir, 'b.jsonc'));
      },
      /symlink loop/,
    ],
    [
      'a dangling link',
      (dir: string) => symlinkSync('../dotfiles/gone.jsonc', join(dir, 'opencode.jsonc')),
      /symlink to \.\.\/dotfiles\/gone\.jsonc, which does not exist/,
    ],
  ] as const)('opencode.jsonc is %s: install and dry run are refused', (_name, make, message) => {
    const { ctx, root } = sandbox();
    const dir = opencodeDir(ctx);
    mkdirSync(dir, { recursive: true });
    make(dir);
    const before = listing(dir);
    for (const dryRun of [true, false]) {
      const [o] = install(ctx, ['opencode', 'pi'], { dryRun, run: false });
      expect(o!.status).toBe('refused');
      expect(o!.problems.join('\n')).toMatch(message);
      expect(o!.problems.join('\n')).toContain(join(dir, 'opencode.jsonc'));
    }
    expect(listing(dir)).toEqual(before);
    expect(existsSync(join(root, 'dotfiles'))).toBe(false);
  });

  it('a link broken after install: uninstall is refused and keeps the record, and works once the link is mended', () => {
    const { ctx, root } = sandbox();
    const file = join(ctx.home, '.cursor', 'hooks.json');
    const target = linkedFile(root, file, 'hooks.json', '{"version":1,"hooks":{}}');
    install(ctx, ['cursor'], run);
    expect(readFileSync(target, 'utf8')).toContain('hook.cjs');
    const moved = `${target}.moved`;
    // Dangling: the target moved away.
    renameSync(target, moved);
    const [o] = uninstall(ctx, ['cursor'], run);
    expect(o!.status).toBe('refused');
    expect(o!.problems.join('\n')).toMatch(/which does not exist/);
    expect(existsSync(target)).toBe(false);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    renameSync(moved, target);
    expect(uninstall(ctx, ['cursor'], run)[0]!.status).toBe('done');
    expect(readFileSync(target, 'utf8')).toBe('{"version":1,"hooks":{}}');
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });
});

describe('a file a harness command edits (Codex config.toml)', () => {
  it.each([true, false])(
    "symlinked: %s. Uninstall takes out the tables Codex left (in the link's target) and keeps the link",
    (linked) => {
      const { ctx, root } = sandbox();
      const codexHome = join(root, 'codex-home');
      const file = join(codexHome, 'config.toml');
      const original = '# mine\nmodel = "x"\n';
      const target = linked ? linkedFile(root, file, 'config.toml', original) : file;
      if (!linked) {
        mkdirSync(codexHome);
        writeFileSync(file, original);
      }
      // A stand-in for codex 0.169.0's plugin commands: add appends the tables; remove leaves them (the case apply.ts mends).
      const bin = join(root, 'fake-codex');
      writeFileSync(
        bin,
        [
          '#!/bin/sh',
          'f="$CODEX_HOME/config.toml"',
          'case "$1 $2 $3" in',
          '  "plugin marketplace add") printf \'\\n[marketplaces.tiergate]\\nsource_type = "local"\\nsource = "%s"\\n\' "$4" >> "$f" ;;',
          '  "plugin add "*) printf \'\\n[plugins."tiergate@tiergate"]\\nenabled = true\\n\' >> "$f" ;;',
          'esac',
          '',
        ].join('\n'),
      );
      chmodSync(bin, 0o755);
      Object.assign(ctx.env, { CODEX_HOME: codexHome, TIERGATE_CODEX_BIN: bin });
      expect(install(ctx, ['codex'], { dryRun: false, run: true })[0]!.status).toBe('done');
      expect(readFileSync(target, 'utf8')).toContain('[plugins."tiergate@tiergate"]');
      const [un] = uninstall(ctx, ['codex'], { dryRun: false, run: true });
      expect(un!.status, un!.problems.join('; ')).toBe('done');
      expect(lstatSync(file).isSymbolicLink()).toBe(linked);
      expect(readFileSync(target, 'utf8')).toBe(original);
    },
  );
});

/**
 * issue 34 item 9: `tiergate install claude --statusline` sets Claude Code's statusLine only where the user has none,
 * and uninstall puts settings.json back byte for byte, also after Claude Code's own commands re-serialised it (a fake
 * `claude` that edits the file as 2.1.328 does: reference claude-code.md, install section).
 */
import { chmodSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInstallCli } from '../../../src/cli/install/run.js';
import { statusLineSetting } from '../../../src/adapters/claude/install.js';
import { makeContext } from '../../../src/install/context.js';
import { runCaptured } from '../../support/cli.js';
import { sandbox } from './support.js';

/** A `claude` that does what the real one does to settings.json: parse, change, JSON.stringify with 2 spaces. */
const FAKE_CLAUDE = `#!${process.execPath}
const fs = require('node:fs'), path = require('node:path');
const file = path.join(process.env.CLAUDE_CONFIG_DIR || path.join(process.env.HOME, '.claude'), 'settings.json');
const s = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
const a = process.argv.slice(2).join(' ');
if (a.startsWith('plugin marketplace add')) s.extraKnownMarketplaces = { ...s.extraKnownMarketplaces, tiergate: { source: { source: 'directory', path: process.argv[5] } } };
else if (a.startsWith('plugin install')) s.enabledPlugins = { ...s.enabledPlugins, [process.argv[4]]: true };
else if (a.startsWith('plugin uninstall')) { s.enabledPlugins = { ...s.enabledPlugins }; delete s.enabledPlugins[process.argv[4]]; }
else if (a.startsWith('plugin marketplace remove')) { s.extraKnownMarketplaces = { ...s.extraKnownMarketplaces }; delete s.extraKnownMarketplaces[process.argv[5]]; }
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, JSON.stringify(s, null, 2));
`;

function setup(settings: string | null) {
  const { ctx } = sandbox();
  const fake = join(ctx.home, 'fake-claude');
  writeFileSync(fake, FAKE_CLAUDE);
  chmodSync(fake, 0o755);
  const dir = join(ctx.home, '.claude');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'settings.json');
  if (settings !== null) writeFileSync(file, settings);
  // Wide: the messages asserted on are one line each (output wraps to COLUMNS otherwise).
  const env = { ...ctx.env, TIERGATE_CLAUDE_BIN: fake, COLUMNS: '1000' } as Record<string, string>;
  const cli = (verb: 'install' | 'uninstall', args: string[]) => runCaptured((a) => runInstallCli(verb, a), args, env);
  return { ctx, file, cli, read: () => readFileSync(file, 'utf8') };
}

// A user's file as people write it: tabs, a comment-free JSON with its own key order and a trailing newline.
const USER = '{\n\t"model": "sonnet",\n\t"permissions": { "allow": ["Bash(ls:*)"] }\n}\n';

describe('install claude --statusline', () => {
  it('--run: sets statusLine where there is none; uninstall gives back the exact bytes', async () => {
    const s = setup(USER);
    const r = await s.cli('install', ['claude', '--statusline', '--run']);
    expect(r.code).toBe(0);
    const after = JSON.parse(s.read()) as { statusLine?: unknown; enabledPlugins?: unknown };
    expect(after.statusLine).toEqual(statusLineSetting(makeContext(s.ctx.env)));
    expect(after.statusLine).toMatchObject({ command: expect.stringMatching(/^node .*dist\/statusline\.cjs'?$/) });
    expect(after.enabledPlugins).toEqual({ 'tiergate@tiergate': true });
    // Installed again: nothing to do.
    expect((await s.cli('install', ['claude', '--statusline', '--run', '--json'])).code).toBe(0);
    const u = await s.cli('uninstall', ['claude', '--run']);
    expect(u.code).toBe(0);
    expect(s.read()).toBe(USER);
  });

  it('printed commands (no --run): the edit is made now and taken back out byte for byte', async () => {
    const s = setup(USER);
    await s.cli('install', ['claude', '--statusline']);
    expect(JSON.parse(s.read()).statusLine).toEqual(statusLineSetting(makeContext(s.ctx.env)));
    await s.cli('uninstall', ['claude']);
    expect(s.read()).toBe(USER);
  });

  it("a user's own statusLine is never replaced, and said so; uninstall leaves it byte for byte", async () => {
    const own = '{\n  "statusLine": { "type": "command", "command": "~/.claude/mine.sh" }\n}\n';
    const s = setup(own);
    const r = await s.cli('install', ['claude', '--statusline', '--run']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('already has a statusLine of yours: left as it is');
    expect(JSON.parse(s.read()).statusLine).toEqual({ type: 'command', command: '~/.claude/mine.sh' });
    await s.cli('uninstall', ['claude', '--run']);
    expect(s.read()).toBe(own);
  });

  it("a statusLine the user put in place of tiergate's after install is theirs: uninstall keeps it", async () => {
    const s = setup(USER);
    await s.cli('install', ['claude', '--statusline', '--run']);
    const theirs = { type: 'command', command: 'ccstatusline' };
    writeFileSync(s.file, JSON.stringify({ ...JSON.parse(s.read()), statusLine: theirs }, null, 2));
    await s.cli('uninstall', ['claude', '--run']);
    expect(JSON.parse(s.read()).statusLine).toEqual(theirs);
  });

  it('without --statusline, install leaves statusLine alone; no settings file: created and removed again', async () => {
    const s = setup(USER);
    await s.cli('install', ['claude', '--run']);
    expect(JSON.parse(s.read()).statusLine).toBeUndefined();
    const fresh = setup(null);
    await fresh.cli('install', ['claude', '--statusline', '--run']);
    expect(JSON.parse(fresh.read()).statusLine).toEqual(statusLineSetting(makeContext(fresh.ctx.env)));
    await fresh.cli('uninstall', ['claude', '--run']);
    expect(() => fresh.read()).toThrow(/ENOENT/);
  });
});

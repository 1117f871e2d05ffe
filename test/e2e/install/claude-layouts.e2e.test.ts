/**
 * Claude Code 2.1.328's own `claude plugin …` commands rewrite settings.json (re-serialised, keys re-ordered, empty
 * objects left on uninstall); tiergate backs it up and must leave it byte-identical after uninstall, over many layouts.
 * Real binary, throwaway CLAUDE_CONFIG_DIR, non-essential traffic off, proxies at a closed loopback port.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import { closedProxyEnv } from '../support/sandbox.js';
import { packAndInstall } from '../../support/packed.js';

let installed = '';
beforeAll(() => {
  installed = packAndInstall().installed;
}, 600_000);

const layouts: { name: string; text: string }[] = [
  { name: '{}', text: '{}' },
  { name: 'tabs + CRLF', text: '{\r\n\t"model": "sonnet",\r\n\t"env": {\r\n\t\t"FOO": "1"\r\n\t}\r\n}\r\n' },
  { name: 'BOM', text: '\uFEFF{\n  "model": "opus"\n}\n' },
  { name: 'compact one line', text: '{"model":"haiku","cleanupPeriodDays":7}' },
  {
    name: 'foreign hooks in the same event',
    text: '{\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Agent", "hooks": [ { "type": "command", "command": "echo audit" } ] }\n    ]\n  }\n}\n',
  },
  {
    name: 'foreign plugin and marketplace',
    text: '{\n  "enabledPlugins": { "thing@other": true },\n  "extraKnownMarketplaces": { "other": { "source": { "source": "directory", "path": "__OTHER__" } } }\n}\n',
  },
];

describe('Claude Code settings.json round trips', () => {
  const b = harnessBin('claude');
  it.each(layouts)('$name', ({ text: layoutText }) => {
    if (!b.ok) throw new Error(b.reason);
    const root = mkdtempSync(join(tmpdir(), 'tg-claude-layout-'));
    const home = join(root, 'home');
    const env: Record<string, string> = {
      PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      TIERGATE_HOME: join(root, 'tg'),
      TIERGATE_CLAUDE_BIN: b.bin,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      ...closedProxyEnv(),
    };
    const other = join(root, 'other-market');
    mkdirSync(join(other, '.claude-plugin'), { recursive: true });
    writeFileSync(
      join(other, '.claude-plugin', 'marketplace.json'),
      JSON.stringify({ name: 'other', owner: { name: 'o' }, plugins: [{ name: 'thing', source: './' }] }),
    );
    writeFileSync(join(other, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'thing', version: '1.0.0' }));
    const text = layoutText.replace('__OTHER__', other);
    const settings = join(env.CLAUDE_CONFIG_DIR!, 'settings.json');
    mkdirSync(dirname(settings), { recursive: true });
    writeFileSync(settings, text);
    const cli = (...args: string[]) =>
      JSON.parse(
        spawnSync(process.execPath, [join(installed, 'dist', 'cli.js'), ...args, '--json'], {
          encoding: 'utf8',
          env,
          timeout: 150_000,
        }).stdout,
      );

    const ins = cli('install', 'claude', '--run').harnesses[0];
    expect(ins.status, ins.problems.join('; ')).toBe('done');
    const list = JSON.parse(
      spawnSync(b.bin, ['plugin', 'list', '--json'], { encoding: 'utf8', env, timeout: 60_000 }).stdout,
    ) as { id: string }[];
    expect(list.map((p) => p.id)).toContain('tiergate@tiergate');

    const un = cli('uninstall', 'claude', '--run').harnesses[0];
    expect(un.status, un.problems.join('; ')).toBe('done');
    expect(readFileSync(settings, 'latin1')).toBe(Buffer.from(text).toString('latin1'));
  });
});

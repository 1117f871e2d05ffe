/**
 * Codex 0.169.0's own `codex plugin …` commands edit config.toml; tiergate backs it up, cleans up after them, and
 * must leave the file byte-identical after uninstall, over many layouts. Real binary, throwaway CODEX_HOME, loopback
 * only (update check, ChatGPT and analytics traffic off; proxies at a closed loopback port).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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

const NET_OFF = 'check_for_update_on_startup = false\nchatgpt_base_url = "http://127.0.0.1:9/"\n';
const ANALYTICS_OFF = '[analytics]\nenabled = false\n';

/** null = no config.toml at all (Codex then makes its update check; the proxies keep it on loopback). */
const layouts: { name: string; text: string | null }[] = [
  { name: 'no file', text: null },
  { name: 'only network switches', text: `${NET_OFF}\n${ANALYTICS_OFF}` },
  {
    name: 'comments everywhere',
    text: `# top comment\n${NET_OFF}model = "gpt-6-astra" # inline\n\n# before a table\n${ANALYTICS_OFF}# trailing comment\n`,
  },
  { name: 'CRLF line endings', text: `${NET_OFF}\n${ANALYTICS_OFF}`.replace(/\n/g, '\r\n') },
  { name: 'no final newline', text: `${NET_OFF}\n${ANALYTICS_OFF}`.replace(/\n$/, '') },
  { name: 'plugins feature explicitly on', text: `${NET_OFF}\n[features]\nplugins = true\n\n${ANALYTICS_OFF}` },
  {
    name: 'foreign marketplace and plugin tables',
    text: `${NET_OFF}\n[marketplaces.other]\nsource_type = "local"\nsource = "__OTHER__"\n\n[plugins."thing@other"]\nenabled = true\n\n${ANALYTICS_OFF}`,
  },
  {
    name: 'dotted keys and inline tables',
    text: `${NET_OFF}analytics.enabled = false\nshell_environment_policy = { inherit = "core" }\n`,
  },
  {
    name: 'array of tables and MCP servers',
    text: `${NET_OFF}\n${ANALYTICS_OFF}\n[mcp_servers.docs]\ncommand = "docs-mcp"\nargs = ["--port", "0"]\n\n[[profiles_list]]\nname = "a"\n`,
  },
  { name: 'indented keys and blank lines', text: `\n\n${NET_OFF}\n\n\n[analytics]\n    enabled = false\n\n` },
  {
    name: 'model provider table',
    text: `${NET_OFF}model_provider = "fake"\n\n${ANALYTICS_OFF}\n[model_providers.fake]\nname = "fake"\nbase_url = "http://127.0.0.1:9/v1"\nenv_key = "FAKE_KEY"\n`,
  },
];

describe('Codex config.toml round trips', () => {
  const b = harnessBin('codex');
  it.each(layouts)('$name', ({ text: layoutText }) => {
    let text = layoutText;
    if (!b.ok) throw new Error(b.reason);
    const root = mkdtempSync(join(tmpdir(), 'tg-codex-layout-'));
    const home = join(root, 'home');
    const env: Record<string, string> = {
      PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      HOME: home,
      CODEX_HOME: join(home, '.codex'),
      TIERGATE_HOME: join(root, 'tg'),
      TIERGATE_CODEX_BIN: b.bin,
      ...closedProxyEnv(),
    };
    const cfg = join(env.CODEX_HOME!, 'config.toml');
    mkdirSync(dirname(cfg), { recursive: true });
    // A foreign marketplace must exist: Codex refuses to list plugins when a configured marketplace root is missing.
    const other = join(root, 'other-market');
    mkdirSync(join(other, '.agents', 'plugins'), { recursive: true });
    writeFileSync(
      join(other, '.agents', 'plugins', 'marketplace.json'),
      JSON.stringify({ name: 'other', plugins: [{ name: 'thing', source: { source: 'local', path: './' } }] }),
    );
    text = text?.replace('__OTHER__', other) ?? null;
    if (text !== null) writeFileSync(cfg, text);
    const cli = (...args: string[]) =>
      JSON.parse(
        spawnSync(process.execPath, [join(installed, 'dist', 'cli.js'), ...args, '--json'], {
          encoding: 'utf8',
          env,
          timeout: 120_000,
        }).stdout,
      );

    const ins = cli('install', 'codex', '--run').harnesses[0];
    expect(ins.status, ins.problems.join('; ')).toBe('done');
    const list = JSON.parse(
      spawnSync(b.bin, ['plugin', 'list', '--json'], { encoding: 'utf8', env, timeout: 60_000 }).stdout,
    );
    expect(list.installed.map((p: { pluginId: string }) => p.pluginId)).toContain('tiergate@tiergate');
    if (text !== null) expect(readFileSync(cfg, 'utf8').startsWith(text.trimEnd().split(/\r?\n/)[0]!)).toBe(true);

    const un = cli('uninstall', 'codex', '--run').harnesses[0];
    expect(un.status, un.problems.join('; ')).toBe('done');
    if (text === null) expect(existsSync(cfg)).toBe(false);
    else expect(readFileSync(cfg, 'latin1')).toBe(Buffer.from(text).toString('latin1'));
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { HARNESS_IDS } from '../../../src/contracts/harness.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';

let home: string;
let out: string;
let err: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tiergate-cli-'));
  vi.stubEnv('TIERGATE_HOME', home);
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
  vi.spyOn(process, 'cwd').mockReturnValue(home);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  rmSync(home, { recursive: true, force: true });
});

describe('tiergate prices', () => {
  it('show --json: the resolution of each name', async () => {
    expect(await main(['prices', 'show', 'opus', 'gpt-6.1-sol', '--json'])).toBe(0);
    const rows = JSON.parse(out);
    expect(rows.map((r: { id: string; how: string }) => [r.id, r.how])).toEqual([
      ['claude-opus-5-5', 'alias'],
      ['gpt-6-sol', 'estimated'],
    ]);
  });

  it('show: a table with rates, tiers and source; exit 1 when a name is unknown', async () => {
    expect(await main(['prices', 'show', 'claude-haiku-5-5', 'fake/big', '--harness', 'claude'])).toBe(1);
    expect(out).toMatch(/claude-haiku-5-5 \(exact\)/);
    expect(out).toMatch(/prompt > 100000/);
    expect(out).toMatch(/0\.625/);
    expect(out).toMatch(/source\s+claude-code-2\.1\.328/);
    expect(out).toMatch(/fake\/big \(claude\)\n\s+unknown: no price/);
  });

  it('show --provider foundry resolves Claude aliases for that provider', async () => {
    await main(['prices', 'show', 'opus', '--provider', 'foundry', '--json']);
    expect(JSON.parse(out)[0].id).toBe('claude-opus-4-6');
  });

  it('list --family filters, --json gives rows', async () => {
    expect(await main(['prices', 'list', '--family', 'gpt-6', '--json'])).toBe(0);
    expect(JSON.parse(out).map((r: { key: string }) => r.key)).toEqual([
      'gpt-6-astra',
      'gpt-6-astra-pro',
      'gpt-6-luna',
      'gpt-6-sol',
    ]);
  });

  it('list prints a table', async () => {
    await main(['prices', 'list', '--family', 'opus-5']);
    expect(out).toMatch(/│ claude-opus-5-5 +│ anthropic +│ +4 │ +20 │/);
    // Bedrock's regional endpoints bill 1.1x and are listed under their own names.
    expect(out).toMatch(/│ us\.anthropic\.claude-opus-5 +│ anthropic +│ +5\.5 │/);
    expect(out).toMatch(/\n6 models/);
  });

  it('usage errors exit 2', async () => {
    expect(await main(['prices'])).toBe(2);
    expect(await main(['prices', 'show'])).toBe(2);
    expect(await main(['prices', 'show', 'x', '--harness', 'emacs'])).toBe(2);
    expect(
      err.endsWith(
        `tiergate prices show: unknown --harness 'emacs' (one of ${HARNESS_IDS.join(', ')}). Run 'tiergate prices show --help' for its options.\n`,
      ),
    ).toBe(true);
    // A misspelt flag is refused, not taken as one that swallows the next word (it did: `--harnes claude`).
    err = '';
    expect(await main(['prices', 'show', 'opus', '--harnes', 'claude'])).toBe(2);
    expect(err).toMatch(/^tiergate prices show: unknown option '--harnes': did you mean '--harness'\?/);
    err = '';
    expect(await main(['prices', 'list', 'extra'])).toBe(2);
    expect(err).toMatch(/^tiergate prices list: unexpected argument 'extra'/);
  });
});

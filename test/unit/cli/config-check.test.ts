/**
 * `config check` checks tier values against what each harness takes (issue 21): a Claude typo ("sonet") is an error
 * with the nearest alias, a full id the catalog knows is fine; a model-routed harness's unknown model is a warning.
 * A file that is not JSON is named by line and column.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { paths } from '../../../src/io/paths.js';
import { runCaptured } from '../../support/cli.js';

let home: string;
// Wide enough that each message stays on one line: these tests read the messages, the wrapping has its own tests.
const env = () => ({ TIERGATE_HOME: home, TIERGATE_PRICE_REFRESH: 'off', COLUMNS: '400' });
const write = (text: string) => {
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(paths(env()).config, text);
};
const check = (...argv: string[]) => runCaptured(main, ['config', 'check', ...argv], env(), home);

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tg-config-check-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('config check: tier values', () => {
  it('the built-in tiers pass', async () => {
    const r = await check();
    expect(r.code).toBe(0);
    expect(r.out).toContain('ok: no problems found');
    expect(r.out).not.toContain('warnings:');
  });

  it('a Claude typo is an error with a did-you-mean; aliases and full catalog ids pass', async () => {
    write(JSON.stringify({ tiers: { claude: { cheap: 'haiku', standard: 'sonet', premium: 'claude-opus-5-5' } } }));
    const r = await check();
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      "tiers.claude.standard: 'sonet' is not a model claude takes (haiku, sonnet, opus, fable, or a full model id the price catalog knows): did you mean 'sonnet'?",
    );
    expect(r.out).not.toContain('tiers.claude.cheap');
    expect(r.out).not.toContain('tiers.claude.premium');
    const j = await check('--json');
    const doc = JSON.parse(j.out) as { ok: boolean; tierProblems: { harness: string; tier: string; level: string }[] };
    expect(doc.ok).toBe(false);
    expect(doc.tierProblems).toMatchObject([{ harness: 'claude', tier: 'standard', value: 'sonet', level: 'error' }]);
  });

  it('an unknown model for a model-routed harness is a warning (exit 0); agent-routed maps are not judged', async () => {
    write(
      JSON.stringify({
        tiers: {
          codex: { cheap: 'gpt-6-lunna' },
          opencode: { cheap: 'my-cheap-agent' },
          pi: { cheap: 'local/whatever' },
        },
      }),
    );
    const r = await check();
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /warnings:\n {2}- tiers\.codex\.cheap: 'gpt-6-lunna' is not a model the price catalog knows, so its price is unknown \(did you mean 'gpt-6-luna'\?\)/,
    );
    expect(r.out).not.toMatch(/opencode|local\/whatever/);
  });
});

describe('config check: a file that is not JSON', () => {
  it('names the line and column', async () => {
    write('{\n  "mode": "on",\n  "tiers": {\n    "claude": { "cheap": "haiku", }\n  }\n');
    const r = await check();
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/not valid JSON \(at line 4, column \d+\)/);
  });
});

describe('config check: a value of the wrong form', () => {
  it('says what the value should be in words, never as a raw regex', async () => {
    write(
      JSON.stringify({
        budgets: { day: '12.x' },
        team: { url: 'http://db.example' },
        trustedProjects: ['relative/dir'],
        refresh: { enabled: true, ttlHours: 24, sources: [{ name: 'a', url: 'ftp://x', format: 'litellm' }] },
      }),
    );
    const r = await check();
    expect(r.code).toBe(1);
    expect(r.out).toContain('budgets.day: expected a non-negative decimal string');
    expect(r.out).toContain('team.url: expected a postgres:// URL');
    expect(r.out).toContain('trustedProjects.0: expected an absolute path');
    expect(r.out).toContain('refresh.sources.0.url: expected an http(s) URL');
    expect(r.out).not.toMatch(/matching|\/\^/);
  });
});

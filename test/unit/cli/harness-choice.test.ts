/**
 * `explain` and `prices show` have no default --harness (issue 30 item 2): a model one harness knows picks it, several
 * or none ask on a terminal, and without one the command fails with the choices on one line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HARNESSES } from '../../../src/adapters/index.js';
import { run as explainCommand } from '../../../src/cli/commands/explain.js';
import { run as pricesCommand } from '../../../src/cli/commands/prices.js';
import { chooseHarness, harnessesKnowing, terminalAsk } from '../../../src/cli/harness-choice.js';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';
import { clearRuntimeCache } from '../../../src/config/runtime.js';
import { HARNESS_IDS } from '../../../src/contracts/harness.js';
import { runCaptured } from '../../support/cli.js';

const tiers = DEFAULT_POLICY.tiers;

describe('harnessesKnowing', () => {
  it('a tier map value names its harness', () => {
    expect(harnessesKnowing(['opus'], tiers)).toEqual(['claude']);
    expect(harnessesKnowing(['GPT-6-Sol'], tiers)).toEqual(['codex']);
    expect(harnessesKnowing(['gpt-5.4-mini'], tiers)).toEqual(['copilot']);
    expect(harnessesKnowing(['no-such-model-9'], tiers)).toEqual([]);
  });

  it("a name only a harness's own alias tables resolve", () => {
    const prices = {
      resolve: (name: string, harness: string) => ({
        how: name === 'fancy' && harness === 'grok' ? 'alias' : 'unknown',
      }),
    } as Parameters<typeof harnessesKnowing>[2];
    expect(harnessesKnowing(['fancy'], tiers, prices)).toEqual(['grok']);
  });

  it('several models: every harness that knows one of them', () => {
    expect(harnessesKnowing(['opus', 'gpt-6-sol'], tiers)).toEqual(['claude', 'codex']);
  });
});

describe('chooseHarness', () => {
  it('--harness wins; an unknown one is an error with a suggestion', async () => {
    expect(await chooseHarness('codex', ['opus'], ['claude'], null)).toEqual({ harness: 'codex' });
    expect(await chooseHarness('codx', [], [], null)).toEqual({
      error: "unknown --harness 'codx': did you mean 'codex'?",
    });
  });

  it('one harness knows the models: that one, without asking', async () => {
    const ask = vi.fn(async () => 'codex');
    expect(await chooseHarness(undefined, ['opus'], ['claude'], ask)).toEqual({ harness: 'claude' });
    expect(ask).not.toHaveBeenCalled();
  });

  it('not a terminal: one line naming the choices, never a guess', async () => {
    const several = await chooseHarness(undefined, ['m'], ['claude', 'copilot'], null);
    expect(several).toEqual({
      error: "name the harness with --harness (one of claude, copilot): 'm' is known to claude, copilot",
    });
    const none = await chooseHarness(undefined, ['m'], [], null);
    expect('error' in none && none.error).toBe(
      `name the harness with --harness (one of ${HARNESS_IDS.join(', ')}): no harness's tiers or aliases name 'm'`,
    );
    expect('error' in none && none.error.includes('\n')).toBe(false);
  });

  it('a terminal: asks among the choices and takes the answer', async () => {
    const asked: string[] = [];
    const ask = async (q: string) => (asked.push(q), ' Copilot\n');
    expect(await chooseHarness(undefined, ['m'], ['claude', 'copilot'], ask)).toEqual({ harness: 'copilot' });
    expect(asked).toEqual(["Which harness? 'm' is known to claude, copilot (claude, copilot): "]);
    expect(await chooseHarness(undefined, ['m'], ['claude', 'copilot'], async () => 'codex')).toEqual({
      error: "unknown --harness 'codex' (one of claude, copilot)",
    });
  });

  it('terminalAsk: null unless stdin and stderr are both terminals', () => {
    const tty = { isTTY: true } as NodeJS.ReadStream & NodeJS.WriteStream;
    const pipe = { isTTY: false } as NodeJS.ReadStream & NodeJS.WriteStream;
    expect(terminalAsk(pipe, tty)).toBeNull();
    expect(terminalAsk(tty, pipe)).toBeNull();
    expect(terminalAsk(tty, tty)).toBeTypeOf('function');
  });
});

describe('the commands', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tg-harness-choice-'));
    vi.stubEnv('HOME', join(root, 'home'));
    vi.stubEnv('TIERGATE_HOME', join(root, 'tg'));
    vi.stubEnv('TIERGATE_PRICE_REFRESH', 'off');
    clearRuntimeCache();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    clearRuntimeCache();
    rmSync(root, { recursive: true, force: true });
  });

  it('explain infers the harness from the child model', async () => {
    const r = await runCaptured(
      (a) => explainCommand(a, HARNESSES, null),
      ['--parent', 'gpt-6-astra', '--child', 'gpt-6-sol', '--json'],
      {},
      root,
    );
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { observation: { harness: string } }).observation.harness).toBe('codex');
  });

  it('explain without a harness that knows the models: exit 2 and the choices (not a terminal)', async () => {
    const r = await runCaptured(
      (a) => explainCommand(a, HARNESSES, null),
      ['--parent', 'mystery-parent-1', '--child', 'mystery-child-1'],
      {},
      root,
    );
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain(`name the harness with --harness (one of ${HARNESS_IDS.join(', ')})`);
  });

  it('explain asks on a terminal and decides for the harness picked', async () => {
    const r = await runCaptured(
      (a) => explainCommand(a, HARNESSES, async () => 'copilot'),
      ['--parent', 'mystery-parent-1', '--child', 'cheap', '--json'],
      {},
      root,
    );
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { observation: { harness: string } }).observation.harness).toBe('copilot');
  });

  it('prices show infers the harness from an alias only one harness has', async () => {
    const r = await runCaptured((a) => pricesCommand(a, null), ['show', 'opus', '--json'], {}, root);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { how: string }[])[0]!.how).toBe('alias');
  });

  it('prices show: no harness knows the name: exit 2 (not a terminal), or the answer (a terminal)', async () => {
    const fails = await runCaptured((a) => pricesCommand(a, null), ['show', 'mystery-model-1'], {}, root);
    expect(fails.code).toBe(2);
    expect(fails.err).toContain("no harness's tiers or aliases name 'mystery-model-1'");
    const asked = await runCaptured(
      (a) => pricesCommand(a, async () => 'codex'),
      ['show', 'mystery-model-1'],
      {},
      root,
    );
    expect(asked.code).toBe(1);
    expect(asked.out).toMatch(/mystery-model-1 \(codex\)/);
  });
});

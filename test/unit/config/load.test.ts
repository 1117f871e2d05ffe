import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyLayer, loadPolicy, DEFAULT_POLICY } from '../../../src/config/load.js';

describe('policy layers', () => {
  it('keeps defaults when no file exists', () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-cfg-'));
    const r = loadPolicy({ TIERGATE_HOME: home }, home);
    expect(r.policy).toEqual(DEFAULT_POLICY);
    expect(r.diagnostics).toEqual([]);
  });

  it('merges user then project, tier maps per tier', () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-cfg-'));
    mkdirSync(join(home, 'config'), { recursive: true });
    writeFileSync(
      join(home, 'config', 'config.json'),
      JSON.stringify({ mode: 'off', tiers: { claude: { cheap: 'sonnet' } } }),
    );
    const project = mkdtempSync(join(tmpdir(), 'tg-proj-'));
    // Both tighten the user's policy, so an untrusted project's file applies (project-layer.test.ts has the rest).
    writeFileSync(join(project, '.tiergate.json'), '\uFEFF' + JSON.stringify({ mode: 'warn', unknownPrice: 'deny' }));
    const r = loadPolicy({ TIERGATE_HOME: home }, project);
    expect(r.policy.mode).toBe('warn');
    expect(r.policy.unknownPrice).toBe('deny');
    expect(r.policy.tiers.claude).toEqual({ cheap: 'sonnet', standard: 'sonnet', premium: 'opus' });
    expect(r.files).toHaveLength(2);
    expect(r.diagnostics).toEqual([]);
  });

  // Every invalid shape yields a diagnostic and leaves that section at its previous value.
  const invalid: [string, unknown][] = [
    ['mode', 'strict'],
    ['unknownPrice', true],
    ['defaultTier', 'huge'],
    ['tiers', { claude: { cheap: 5 } }],
    ['tiers', 'haiku'],
    ['priceOverrides', { x: { input: 3 } }],
    ['priceOverrides', { x: { input: '-1', output: '2' } }],
    ['codexRewrite', 'yes'],
    ['claudeProvider', 'azure'],
    ['refresh', { ttlHours: -1 }],
    ['refresh', { sources: [{ name: 'x', url: 'not a url', format: 'openrouter' }] }],
    ['observer', { tailBytes: 0 }],
    ['trustedProjects', ['relative/path']],
    ['trustedProjects', '/one/path'],
  ];
  for (const [key, value] of invalid) {
    it(`rejects ${key} = ${JSON.stringify(value)} with a diagnostic`, () => {
      const r = applyLayer(DEFAULT_POLICY, { [key]: value }, 'f');
      expect(r.diagnostics).toHaveLength(1);
      expect(r.diagnostics[0]).toContain(`invalid '${key}'`);
      expect(r.policy[key as keyof typeof r.policy]).toEqual(DEFAULT_POLICY[key as keyof typeof DEFAULT_POLICY]);
    });
  }

  it('reports unknown keys, non-objects and unparseable files', () => {
    expect(applyLayer(DEFAULT_POLICY, { colour: 'red' }, 'f').diagnostics[0]).toMatch(/unknown key 'colour'/);
    expect(applyLayer(DEFAULT_POLICY, [1], 'f').diagnostics[0]).toMatch(/not a JSON object/);
    const home = mkdtempSync(join(tmpdir(), 'tg-cfg-'));
    mkdirSync(join(home, 'config'), { recursive: true });
    writeFileSync(join(home, 'config', 'config.json'), '{ mode: on');
    const r = loadPolicy({ TIERGATE_HOME: home }, null);
    expect(r.policy).toEqual(DEFAULT_POLICY);
    expect(r.diagnostics[0]).toMatch(/not valid JSON/);
  });

  it('refuses a policy file past 256 KiB without reading it whole, and a directory where the file should be', () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-cfg-'));
    mkdirSync(join(home, 'config'), { recursive: true });
    writeFileSync(join(home, 'config', 'config.json'), `{"mode":"warn"}${' '.repeat(256 * 1024)}`);
    const project = mkdtempSync(join(tmpdir(), 'tg-proj-'));
    mkdirSync(join(project, '.tiergate.json'));
    const r = loadPolicy({ TIERGATE_HOME: home }, project);
    expect(r.policy.mode).toBe(DEFAULT_POLICY.mode);
    expect(r.diagnostics).toEqual([
      `${join(home, 'config', 'config.json')}: larger than 262144 bytes; ignored`,
      `${join(project, '.tiergate.json')}: refused: directory where a regular file is expected; ignored`,
    ]);
  });
});

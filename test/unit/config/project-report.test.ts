/** Every effect of the project file, applied or ignored, shows in `tiergate config check` and `tiergate explain`. */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as configCommand } from '../../../src/cli/commands/config.js';
import { run as explainCommand } from '../../../src/cli/commands/explain.js';
import { clearRuntimeCache } from '../../../src/config/runtime.js';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  clearRuntimeCache();
});

/** Runs a command in `cwd` with TIERGATE_HOME set, returning its exit code and stdout. */
async function inDir(
  cwd: string,
  home: string,
  command: () => Promise<number>,
): Promise<{ code: number; out: string }> {
  vi.stubEnv('TIERGATE_HOME', home);
  vi.stubEnv('TIERGATE_PRICE_REFRESH', 'off');
  // One line per message: these tests read the text; wrapping to the terminal has its own tests.
  vi.stubEnv('COLUMNS', '400');
  const was = process.cwd();
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  process.chdir(cwd);
  try {
    clearRuntimeCache();
    const code = await command();
    return { code, out };
  } finally {
    process.chdir(was);
    vi.restoreAllMocks();
  }
}

function setup(user: Record<string, unknown> | null, project: Record<string, unknown> | null) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tg-project-report-')));
  const home = join(dir, 'tg');
  const repo = join(dir, 'repo');
  mkdirSync(repo);
  if (user) {
    mkdirSync(join(home, 'config'), { recursive: true });
    writeFileSync(
      join(home, 'config', 'config.json'),
      JSON.stringify(typeof user.trustedProjects === 'string' ? { ...user, trustedProjects: [repo] } : user),
    );
  }
  if (project) writeFileSync(join(repo, '.tiergate.json'), JSON.stringify(project));
  return { home, repo, userFile: join(home, 'config', 'config.json'), projectFile: join(repo, '.tiergate.json') };
}

const MIXED = { mode: 'off', unknownPrice: 'deny', tiers: { claude: { premium: 'sonnet', standard: 'opus' } } };

describe('tiergate config check', () => {
  it('text: the project file, why it may only tighten, and each key applied or ignored; exit 1 for the ignored ones', async () => {
    const s = setup(null, MIXED);
    const { code, out } = await inDir(s.repo, s.home, () => configCommand(['check']));
    expect(code).toBe(1);
    expect(out).toContain(
      `project policy: ${s.projectFile}: may only tighten (its root is not in trustedProjects in ${s.userFile})\n` +
        '  ignored mode: "off" is looser than the user\'s "on"\n' +
        '  applied unknownPrice: "deny" is stricter than "allow"\n' +
        '  ignored tiers.claude.standard: "opus" is not a value the user\'s map uses for standard or a cheaper tier\n' +
        '  applied tiers.claude.premium: "sonnet" is what the user\'s map uses for premium or a cheaper tier\n',
    );
    expect(out).toContain(
      `  - ${s.projectFile}: ignored 'mode' ("off" is looser than the user's "on"): a project file may only tighten; add this project to trustedProjects in ${s.userFile} to allow`,
    );
    expect(out).toContain('mode on, unknown prices deny');
  });

  it('--json: the project layer with its effects, next to the merged policy', async () => {
    const s = setup(null, MIXED);
    const { out } = await inDir(s.repo, s.home, () => configCommand(['check', '--json']));
    const report = JSON.parse(out) as {
      ok: boolean;
      project: { file: string; trusted: boolean; effects: { key: string; applied: boolean }[] };
      policy: { mode: string };
    };
    expect(report.ok).toBe(false);
    expect(report.policy.mode).toBe('on');
    expect(report.project.file).toBe(s.projectFile);
    expect(report.project.trusted).toBe(false);
    expect(report.project.effects.map((e) => [e.key, e.applied])).toEqual([
      ['mode', false],
      ['unknownPrice', true],
      ['tiers.claude.standard', false],
      ['tiers.claude.premium', true],
    ]);
  });

  it('a trusted root says so, and applies everything; no project file says that too', async () => {
    const s = setup({ trustedProjects: 'repo' }, MIXED);
    const trusted = await inDir(s.repo, s.home, () => configCommand(['check']));
    expect(trusted.code).toBe(0);
    expect(trusted.out).toContain(
      `project policy: ${s.projectFile}: trusted (its root is in trustedProjects), may loosen\n  applied mode: trusted project\n`,
    );
    expect(trusted.out).toContain('mode off');
    const none = setup(null, null);
    expect((await inDir(none.repo, none.home, () => configCommand(['check']))).out).toContain('project policy: none\n');
  });
});

describe('tiergate explain', () => {
  const args = ['--harness', 'claude', '--parent', 'claude-sonnet-5-5', '--child', 'opus'];

  it('text: the decision, then what the project file did', async () => {
    const s = setup(null, { mode: 'off', priceOverrides: { 'claude-opus-5-5': { input: '0', output: '0' } } });
    const { code, out } = await inDir(s.repo, s.home, () => explainCommand(args));
    expect(code).toBe(0);
    expect(out).toMatch(/^decision: CORRECT \(over-ceiling-corrected\)/);
    expect(out).toContain(`project policy: ${s.projectFile}: may only tighten (`);
    expect(out).toContain('  ignored mode: "off" is looser than the user\'s "on"\n');
    expect(out).toContain('  ignored priceOverrides: it reprices models (a free model passes every ceiling)\n');
  });

  it('--json: projectPolicy beside the decision', async () => {
    const s = setup(null, { unknownPrice: 'deny' });
    const { out } = await inDir(s.repo, s.home, () => explainCommand([...args, '--json']));
    const report = JSON.parse(out) as { decision: { action: string }; projectPolicy: { effects: unknown[] } };
    expect(report.decision.action).toBe('correct');
    expect(report.projectPolicy.effects).toEqual([
      { key: 'unknownPrice', applied: true, why: '"deny" is stricter than "allow"' },
    ]);
  });
});

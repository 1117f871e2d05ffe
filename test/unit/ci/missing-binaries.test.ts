/**
 * CI cannot go green with the real-binary tests skipped: under CI a harness binary that cannot be installed, or a
 * missing Chromium, fails; outside CI it skips with the reason printed. The install here points npm at a closed
 * loopback port (the "registry unreachable" case) and at an empty install root, so nothing leaves the machine.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { missing, underCi } from '../../support/ci.js';

const root = join(import.meta.dirname, '../../..');
const script = join(root, 'scripts/install-harnesses.mjs');
let closedRegistry = '';
const emptyRoot = mkdtempSync(join(tmpdir(), 'tg-no-harness-'));

beforeAll(async () => {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  closedRegistry = `http://127.0.0.1:${port}/`;
});
afterAll(() => rmSync(emptyRoot, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
  vi.restoreAllMocks();
});

/** The environment of an install that cannot reach its registry (this run's own strictness left out). */
function offline(ci: string | undefined, strict?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TIERGATE_HARNESS_DIR: emptyRoot,
    npm_config_registry: closedRegistry,
    npm_config_fetch_retries: '0',
  };
  if (ci === undefined) delete env.CI;
  else env.CI = ci;
  if (strict === undefined) delete env.TIERGATE_STRICT;
  else env.TIERGATE_STRICT = strict;
  return env;
}

function install(args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { name: string; ok: boolean; error: string | null });
  return { status: r.status, lines, stderr: r.stderr };
}

describe('underCi', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['0', false],
    ['true', true],
    ['1', true],
    ['yes', true],
  ] as const)('CI=%s -> %s', (v, want) => {
    expect(underCi(v === undefined ? {} : { CI: v })).toBe(want);
  });

  it.each([undefined, '', 'false', '0'])('TIERGATE_STRICT=1 is strict whatever CI holds (CI=%s)', (v) => {
    expect(underCi({ TIERGATE_STRICT: '1', ...(v === undefined ? {} : { CI: v }) })).toBe(true);
  });
});

describe('missing()', () => {
  it('throws under CI, naming what and why', () => {
    expect(() => missing('[e2e] pi', 'registry down', { CI: 'true' })).toThrow(
      /\[e2e\] pi unavailable under CI=true: registry down/,
    );
  });
  it('outside CI prints the reason and returns', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(() => missing('[e2e] pi', 'registry down', {})).not.toThrow();
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(/\[e2e\] pi unavailable: registry down; its tests are skipped/),
    );
  });
});

describe('scripts/install-harnesses.mjs', () => {
  it('exits 1 under CI=true when an install fails (registry unreachable), 0 outside CI; the JSON line says why', () => {
    const ci = install(['pi'], offline('true'));
    expect(ci.lines).toEqual([
      expect.objectContaining({ name: 'pi', ok: false, error: expect.stringMatching(/ECONNREFUSED/) }),
    ]);
    expect(ci.status).toBe(1);
    expect(ci.stderr).toMatch(/1 of 1 failed/);
    const local = install(['pi'], offline(undefined));
    expect(local.lines[0]).toMatchObject({ name: 'pi', ok: false });
    expect(local.status).toBe(0);
    expect(install(['pi'], offline('false')).status).toBe(0);
  }, 60_000);

  it('exits 1 under TIERGATE_STRICT=1 even when the environment holds CI=false or CI=0', () => {
    for (const ci of ['false', '0', undefined]) expect(install(['no-such-harness'], offline(ci, '1')).status).toBe(1);
  });

  it('an unknown harness name is a failed install too', () => {
    expect(install(['no-such-harness'], offline('true')).status).toBe(1);
    expect(install(['no-such-harness'], offline(undefined)).status).toBe(0);
  });
});

describe('harnessBin (test/e2e/support/harness-bin.ts)', () => {
  it('under CI=true an uninstallable binary throws (the file that asked fails); outside CI it is a skip with a reason', async () => {
    for (const [k, v] of Object.entries(offline('true')))
      if (k.startsWith('npm_config_') || k.startsWith('TIERGATE_')) vi.stubEnv(k, v!);
    vi.stubEnv('CI', 'true');
    vi.stubEnv('TIERGATE_STRICT', '');
    const { harnessBin } = await import('../../e2e/support/harness-bin.js');
    expect(() => harnessBin('pi')).toThrow(/\[e2e\] pi unavailable under CI=true: .*ECONNREFUSED/s);
    vi.stubEnv('CI', 'false');
    vi.stubEnv('TIERGATE_STRICT', '1');
    expect(() => harnessBin('pi')).toThrow(/\[e2e\] pi unavailable under TIERGATE_STRICT=1: .*ECONNREFUSED/s);
    vi.stubEnv('CI', '');
    vi.stubEnv('TIERGATE_STRICT', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(harnessBin('pi')).toEqual({ ok: false, reason: expect.stringMatching(/ECONNREFUSED/) });
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/\[e2e\] pi unavailable/));
  }, 60_000);
});

describe('chromiumPath (test/unit/report/browser.ts)', () => {
  const nowhere = join(emptyRoot, 'no-chromium');
  it('under CI=true a missing Chromium throws', async () => {
    vi.stubEnv('TIERGATE_CHROMIUM', nowhere);
    vi.stubEnv('CI', 'true');
    vi.stubEnv('TIERGATE_STRICT', '');
    const { chromiumPath } = await import('../report/browser.js');
    expect(() => chromiumPath()).toThrow(/chromium unavailable under CI=true: chromium not installed/);
  });
  it('outside CI it returns the reason and prints it', async () => {
    vi.stubEnv('TIERGATE_CHROMIUM', nowhere);
    vi.stubEnv('CI', '');
    vi.stubEnv('TIERGATE_STRICT', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { chromiumPath } = await import('../report/browser.js');
    expect(chromiumPath()).toEqual({ reason: expect.stringContaining(nowhere) });
    expect(warn).toHaveBeenCalled();
  });
});

describe('.ci/run', () => {
  /**
   * .ci/run itself, with every command it runs (npm, node, apt-get, chromium) replaced by a stub that records the
   * environment it was given: the suites must run strict whatever CI the shell that started .ci/run held.
   */
  function ciRun(inherited: Record<string, string>) {
    const dir = mkdtempSync(join(tmpdir(), 'tg-ci-run-'));
    const bin = join(dir, 'bin');
    const log = join(dir, 'calls.log');
    mkdirSync(bin);
    for (const name of ['npm', 'node', 'apt-get', 'chromium']) {
      writeFileSync(
        join(bin, name),
        `#!/bin/sh\nprintf '%s\\t%s\\t%s\\n' "${name} $*" "CI=\${CI-<unset>}" "TIERGATE_STRICT=\${TIERGATE_STRICT-<unset>}" >> '${log}'\n`,
      );
      chmodSync(join(bin, name), 0o755);
    }
    const r = spawnSync('bash', [join(root, '.ci/run')], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, ...inherited },
    });
    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    return { status: r.status, stderr: r.stderr, calls };
  }

  it.each<Record<string, string>>([{ CI: 'false' }, { CI: '0' }, { CI: 'false', TIERGATE_STRICT: '0' }, {}])(
    'inherited %o: the suites and the harness install run strict',
    (inherited) => {
      const r = ciRun(inherited);
      expect(r.status, r.stderr).toBe(0);
      const suites = r.calls.filter(([cmd]) =>
        /^(npm test|npm run test:e2e|npm run test:stress|node scripts\/install-harnesses\.mjs)$/.test(cmd!),
      );
      expect(suites.map(([cmd]) => cmd)).toEqual([
        'npm test',
        'node scripts/install-harnesses.mjs',
        'npm run test:e2e',
        'npm run test:stress',
      ]);
      for (const [cmd, ci, strict] of suites) {
        const env = { CI: ci!.slice('CI='.length), TIERGATE_STRICT: strict!.slice('TIERGATE_STRICT='.length) };
        expect({ cmd, strict: underCi(env) }).toEqual({ cmd, strict: true });
      }
    },
  );
});

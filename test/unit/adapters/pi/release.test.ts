/** `tiergate doctor`'s pi release row: which of pi's two package names is on PATH, and whether this Node can run it. */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPiRelease } from '../../../../src/adapters/pi/doctor.js';
import type { InstallContext } from '../../../../src/install/plan.js';

/** An npm install of `name@version` as npm lays it out: the package, and node_modules/.bin/pi linking its cli. */
function installed(name: string, version: string, engine?: string): string {
  const root = mkdtempSync(join(tmpdir(), 'tg-pi-release-'));
  const pkg = join(root, 'node_modules', name);
  mkdirSync(join(pkg, 'dist'), { recursive: true });
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name, version, ...(engine ? { engines: { node: engine } } : {}) }),
  );
  writeFileSync(join(pkg, 'dist', 'cli.js'), '#!/usr/bin/env node\n');
  mkdirSync(join(root, 'node_modules', '.bin'));
  symlinkSync(join('..', name, 'dist', 'cli.js'), join(root, 'node_modules', '.bin', 'pi'));
  return join(root, 'node_modules', '.bin');
}

const ctx = (path: string): InstallContext => ({
  env: { PATH: path },
  home: '/nonexistent',
  pkgRoot: '/nonexistent',
  version: '0',
});

describe('doctor: pi release', () => {
  it('the old package: pi moved, tiergate works with both', () => {
    const c = checkPiRelease(ctx(installed('@mariozechner/pi-coding-agent', '0.73.1')), '20.20.2');
    expect(c.status).toBe('info');
    expect(c.detail).toMatch(
      /^pi 0\.73\.1 from @mariozechner\/pi-coding-agent, whose last release is 0\.73\.1: pi moved to @earendil-works\/pi-coding-agent/,
    );
  });

  it('the new package needs Node >= 22.19: a warning on Node 20 and 22.18, ok on 22.19 and 24', () => {
    const bin = installed('@earendil-works/pi-coding-agent', '1.6.0', '>=22.19.0');
    expect(checkPiRelease(ctx(bin), '20.20.2')).toMatchObject({ status: 'warn' });
    expect(checkPiRelease(ctx(bin), '20.20.2').detail).toMatch(
      /needs Node >= 22\.19 \(>=22\.19\.0\); this Node is 20\.20\.2/,
    );
    expect(checkPiRelease(ctx(bin), '22.18.0').status).toBe('warn');
    expect(checkPiRelease(ctx(bin), '22.19.0')).toMatchObject({
      status: 'ok',
      detail: 'pi 1.6.0 from @earendil-works/pi-coding-agent',
    });
    expect(checkPiRelease(ctx(bin), '24.21.0').status).toBe('ok');
  });

  it('no pi, or a `pi` of another package: said, never guessed', () => {
    expect(checkPiRelease(ctx('/nonexistent'), '22.23.3').status).toBe('info');
    expect(checkPiRelease(ctx(installed('some-other-pi', '1.0.0')), '22.23.3').detail).toMatch(/^no pi on PATH/);
  });
});

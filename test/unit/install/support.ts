import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InstallContext } from '../../../src/install/plan.js';

/** A throwaway HOME plus a fake tiergate package directory (with both marketplace manifests). */
export function sandbox(extraEnv: Record<string, string> = {}): { ctx: InstallContext; root: string } {
  const root = mkdtempSync(join(tmpdir(), 'tg-install-'));
  const home = join(root, 'home');
  const pkgRoot = join(root, 'pkg', 'node_modules', 'tiergate');
  mkdirSync(home, { recursive: true });
  mkdirSync(join(pkgRoot, '.claude-plugin'), { recursive: true });
  mkdirSync(join(pkgRoot, '.agents', 'plugins'), { recursive: true });
  writeFileSync(join(pkgRoot, 'package.json'), JSON.stringify({ name: 'tiergate', version: '9.9.9' }));
  writeFileSync(
    join(pkgRoot, '.claude-plugin', 'marketplace.json'),
    JSON.stringify({ name: 'tiergate', plugins: [{ name: 'tiergate', source: './' }] }),
  );
  writeFileSync(
    join(pkgRoot, '.agents', 'plugins', 'marketplace.json'),
    JSON.stringify({ name: 'tiergate', plugins: [{ name: 'tiergate', source: { source: 'local', path: './' } }] }),
  );
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    TIERGATE_HOME: join(root, 'tg'),
    PATH: process.env.PATH,
    ...extraEnv,
  };
  return { ctx: { env, pkgRoot, version: '9.9.9', home }, root };
}

/** Every file under dir with its bytes, for "nothing was written" assertions. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[p] = readFileSync(p, 'latin1');
    }
  };
  walk(dir);
  return out;
}

/**
 * Packs this checkout's build (`npm test` builds first; pack runs no scripts, so no rebuild races other tests that
 * read dist/) and lays the tarball out in a temp app as `npm install` would: extracted to node_modules/tiergate, each
 * runtime dependency linked from this checkout's node_modules (built for this Node, the native SQLite binding too).
 * No registry and no npm cache: an offline `npm install` needs the dependencies' registry documents cached, which a
 * fresh machine after `npm ci` does not have (ENOTCACHED), and tests never leave loopback.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const repoRoot = join(import.meta.dirname, '../..');

export type Packed = { dir: string; tarball: string; files: string[]; installed: string };

export function packAndInstall(): Packed {
  const dir = mkdtempSync(join(tmpdir(), 'tg-pack-'));
  if (!existsSync(join(repoRoot, 'dist', 'cli.js')))
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'ignore', timeout: 120_000 });
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 120_000,
  });
  const info = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const tarball = join(dir, info[0]!.filename);
  const app = join(dir, 'app');
  const installed = join(app, 'node_modules', 'tiergate');
  mkdirSync(installed, { recursive: true });
  writeFileSync(join(app, 'package.json'), '{"private":true}');
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], { stdio: 'ignore', timeout: 60_000 });
  const deps = Object.keys(
    (JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> })
      .dependencies ?? {},
  );
  for (const dep of deps) {
    const to = join(app, 'node_modules', dep);
    mkdirSync(dirname(to), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules', dep), to, 'dir');
  }
  return { dir, tarball, files: info[0]!.files.map((f) => f.path), installed };
}

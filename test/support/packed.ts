/**
 * Packs this checkout's build (`npm test` builds first; pack runs no scripts, so no rebuild races other tests that
 * read dist/) and installs the tarball into a temp app, offline, from
 * the npm cache. Install scripts stay off (no prebuilt download); the native SQLite binding comes from this
 * checkout's node_modules, built for this Node.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const repoRoot = join(import.meta.dirname, '../..');

export type Packed = { dir: string; tarball: string; files: string[]; installed: string };

export function packAndInstall(): Packed {
  const dir = mkdtempSync(join(tmpdir(), 'tg-pack-'));
  if (!existsSync(join(repoRoot, 'dist', 'cli.js'))) execFileSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'ignore', timeout: 120_000 });
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000 });
  const info = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const tarball = join(dir, info[0]!.filename);
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"private":true}');
  execFileSync('npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], { cwd: app, stdio: 'ignore', timeout: 180_000 });
  const native = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  mkdirSync(join(app, native, '..'), { recursive: true });
  copyFileSync(join(repoRoot, native), join(app, native));
  return { dir, tarball, files: info[0]!.files.map((f) => f.path), installed: join(app, 'node_modules', 'tiergate') };
}

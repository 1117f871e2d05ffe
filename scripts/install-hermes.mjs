// Installs Hermes Agent (PyPI hermes-agent, pinned) and ruff into a venv at .cache/hermes-venv: the binary the e2e
// suite drives (test/e2e/hermes), and the linter of `npm run lint:py`. A Python program, so not in
// install-harnesses.mjs (npm). Kept when the pinned versions are already there. Exits 1 when the install fails, so
// .ci/run (set -e) fails. Prints one JSON line: {name, ok, bin, version, error}.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const HERMES_VERSION = '0.19.0';
export const RUFF_VERSION = '0.17.6';
const root = new URL('..', import.meta.url).pathname;
const venv = join(root, '.cache', 'hermes-venv');
const bin = join(venv, 'bin');

function installed(pkg) {
  try {
    const out = execFileSync(join(bin, 'pip'), ['show', pkg], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return /^Version: (.+)$/m.exec(out)?.[1] ?? null;
  } catch {
    return null;
  }
}

try {
  if (installed('hermes-agent') !== HERMES_VERSION || installed('ruff') !== RUFF_VERSION) {
    // Hermes 0.19.0 needs Python >= 3.11, < 3.14.
    if (!existsSync(join(bin, 'pip'))) execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
    execFileSync(join(bin, 'pip'), ['install', '-q', `hermes-agent==${HERMES_VERSION}`, `ruff==${RUFF_VERSION}`], {
      stdio: 'inherit',
      timeout: 900_000,
    });
  }
  const version = installed('hermes-agent');
  const ok = version === HERMES_VERSION && existsSync(join(bin, 'hermes')) && existsSync(join(bin, 'ruff'));
  console.log(
    JSON.stringify({ name: 'hermes', ok, bin: join(bin, 'hermes'), version, error: ok ? null : 'not installed' }),
  );
  process.exit(ok ? 0 : 1);
} catch (err) {
  console.log(
    JSON.stringify({ name: 'hermes', ok: false, bin: null, version: null, error: String(err).slice(0, 500) }),
  );
  process.exit(1);
}

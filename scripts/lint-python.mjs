// `npm run lint:py`: ruff (lint + format check) over tiergate's Python (the Hermes plugin and its tests), with the ruff
// .ci/run installs into .cache/hermes-venv. Outside CI a missing ruff is a warning (a checkout without the venv can
// still lint the TypeScript); under CI (TIERGATE_STRICT=1, or CI set and not "false"/"0") it fails.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const ruff = join(root, '.cache', 'hermes-venv', 'bin', 'ruff');
const ci =
  process.env.TIERGATE_STRICT === '1' ||
  (Boolean(process.env.CI) && process.env.CI !== 'false' && process.env.CI !== '0');
const targets = ['hermes', 'test/python'];
if (!existsSync(ruff)) {
  console.error(`lint:py: ${ruff} absent (node scripts/install-hermes.mjs)`);
  process.exit(ci ? 1 : 0);
}
const config = ['--config', join(root, 'hermes', 'ruff.toml')];
try {
  execFileSync(ruff, ['check', ...config, ...targets], { cwd: root, stdio: 'inherit' });
  execFileSync(ruff, ['format', '--check', ...config, ...targets], { cwd: root, stdio: 'inherit' });
} catch {
  process.exit(1);
}

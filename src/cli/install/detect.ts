/**
 * Which harnesses are on this machine, for `install --all`: a harness counts when its command is on PATH (or at the
 * TIERGATE_<H>_BIN path) or its config directory exists. `--all` installs into those and says why it skipped the
 * rest; naming a harness installs it regardless (a config prepared before the harness is installed).
 */
import { existsSync } from 'node:fs';
import { HARNESSES } from '../../adapters/index.js';
import type { Harness } from '../../contracts/harness.js';
import { binaryFound } from './apply.js';
import type { InstallContext } from '../../install/plan.js';

export type Detection = { found: true; how: string } | { found: false; why: string };

export function detectHarness(ctx: InstallContext, h: Harness): Detection {
  const p = HARNESSES[h].installer.probe(ctx);
  const bin = p.bins.find((b) => binaryFound(ctx, b));
  if (bin) return { found: true, how: `\`${bin}\` on PATH` };
  const dir = p.dirs.find((d) => existsSync(d));
  if (dir) return { found: true, how: `${dir} exists` };
  return {
    found: false,
    why: `not found: no ${p.bins.map((b) => `\`${b}\``).join(' or ')} on PATH and no ${p.dirs.join(' or ')}`,
  };
}

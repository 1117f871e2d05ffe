/**
 * Which harnesses are on this machine, for `install --all`: a harness counts when its command is on PATH (or at the
 * TIERGATE_<H>_BIN path) or its config directory exists. `--all` installs into those and says why it skipped the
 * rest; naming a harness installs it regardless (a config prepared before the harness is installed).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../contracts/harness.js';
import { binaryFound } from './apply.js';
import { xdgConfigHome } from './context.js';
import type { InstallContext } from './plan.js';

type Probe = { bins: string[]; dirs: string[] };

function probe(ctx: InstallContext, h: Harness): Probe {
  const env = ctx.env;
  const home = ctx.home;
  switch (h) {
    case 'claude':
      return { bins: [env.TIERGATE_CLAUDE_BIN || 'claude'], dirs: [env.CLAUDE_CONFIG_DIR || join(home, '.claude')] };
    case 'codex':
      return { bins: [env.TIERGATE_CODEX_BIN || 'codex'], dirs: [env.CODEX_HOME || join(home, '.codex')] };
    case 'cursor':
      return { bins: ['cursor', 'cursor-agent'], dirs: [join(home, '.cursor')] };
    case 'opencode':
      return { bins: ['opencode'], dirs: [env.OPENCODE_CONFIG_DIR || join(xdgConfigHome(ctx), 'opencode')] };
    case 'pi':
      return { bins: ['pi'], dirs: [env.PI_CODING_AGENT_DIR || join(home, '.pi', 'agent')] };
    case 'copilot':
      return { bins: [env.TIERGATE_COPILOT_BIN || 'copilot'], dirs: [env.COPILOT_HOME || join(home, '.copilot')] };
    default:
      // A harness without its own probe here: its command under its own name, or ~/.<name>.
      return { bins: [env[`TIERGATE_${String(h).toUpperCase()}_BIN`] || String(h)], dirs: [join(home, `.${String(h)}`)] };
  }
}

export type Detection = { found: true; how: string } | { found: false; why: string };

export function detectHarness(ctx: InstallContext, h: Harness): Detection {
  const p = probe(ctx, h);
  const bin = p.bins.find((b) => binaryFound(ctx, b));
  if (bin) return { found: true, how: `\`${bin}\` on PATH` };
  const dir = p.dirs.find((d) => existsSync(d));
  if (dir) return { found: true, how: `${dir} exists` };
  return { found: false, why: `not found: no ${p.bins.map((b) => `\`${b}\``).join(' or ')} on PATH and no ${p.dirs.join(' or ')}` };
}

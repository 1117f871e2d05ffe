/** Locates a harness binary installed by scripts/install-harnesses.mjs; installs it on first use. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../../..');

export type HarnessBin = { ok: true; bin: string } | { ok: false; reason: string };

export function harnessBin(name: 'claude' | 'codex' | 'opencode' | 'pi' | 'bun'): HarnessBin {
  const out = execFileSync(process.execPath, [join(root, 'scripts/install-harnesses.mjs'), name], { encoding: 'utf8', timeout: 900_000 });
  const rec = JSON.parse(out.trim().split('\n').pop()!) as { ok: boolean; bin: string; error: string | null };
  if (!rec.ok) {
    // The one allowed skip: the pinned binary could not be installed on this machine.
    console.warn(`[e2e] ${name} unavailable: ${rec.error}`);
    return { ok: false, reason: rec.error ?? 'install failed' };
  }
  return { ok: true, bin: rec.bin };
}

/**
 * Locates a harness binary installed by scripts/install-harnesses.mjs; installs it on first use.
 * A binary that cannot be installed skips its tests outside CI and fails them under CI (test/support/ci.ts).
 * TIERGATE_HARNESS_DIR (read by the script) points the lookup at another install root.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { missing } from '../../support/ci.js';

const root = join(import.meta.dirname, '../../..');

export type HarnessBin = { ok: true; bin: string } | { ok: false; reason: string };

type Rec = { ok: boolean; bin: string; error: string | null };

function install(name: string): Rec {
  let out: string;
  try {
    out = execFileSync(process.execPath, [join(root, 'scripts/install-harnesses.mjs'), name], {
      encoding: 'utf8',
      timeout: 900_000,
    });
  } catch (err) {
    // Under CI the script exits 1 when the install failed; its JSON line still says why.
    const e = err as { stdout?: string; message: string };
    out = e.stdout || JSON.stringify({ ok: false, bin: '', error: e.message.slice(0, 500) });
  }
  return JSON.parse(out.trim().split('\n').pop()!) as Rec;
}

export function harnessBin(
  name: 'claude' | 'codex' | 'opencode' | 'pi' | 'pi16' | 'bun' | 'copilot' | 'gemini' | 'grok' | 'node22' | 'node24',
): HarnessBin {
  const rec = install(name);
  if (!rec.ok) {
    const reason = rec.error ?? 'install failed';
    missing(`[e2e] ${name}`, reason); // throws under CI
    return { ok: false, reason };
  }
  return { ok: true, bin: rec.bin };
}

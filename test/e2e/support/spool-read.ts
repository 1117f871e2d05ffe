/** Reads every spool record a run left under TIERGATE_HOME (tests only). */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SpoolRecord } from '../../../src/contracts/spool.js';

export function readSpool(tiergateHome: string): SpoolRecord[] {
  const dir = join(tiergateHome, 'data', 'spool');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as SpoolRecord),
  );
}

/** Each dispatch the spool holds as [call id, action, reason], in spool order. */
export function spooledDecisions(tiergateHome: string): Array<[string | null, string, string]> {
  return readSpool(tiergateHome).flatMap((r) =>
    r.type === 'dispatch'
      ? [[r.observation.callId, r.decision.action, r.decision.reason] as [string | null, string, string]]
      : [],
  );
}

export function readDiagnostics(tiergateHome: string): Array<Record<string, unknown>> {
  const f = join(tiergateHome, 'data', 'diagnostics.log');
  if (!existsSync(f)) return [];
  return readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Per harness: is tiergate installed, from where, and do the installed plugin files match this version. A harness
 * without tiergate is information, not an error; a half install, a stale copy or an unreadable config is an error.
 * Each harness's checks are its own (src/adapters/<harness>/doctor.ts, HarnessModule.doctor); one that throws is
 * one error row, and the others still run.
 */
import { harnessList } from '../adapters/index.js';
import type { InstallContext } from '../install/plan.js';
import type { Check } from './check.js';

export function checkHarnesses(ctx: InstallContext): Check[] {
  return harnessList()
    .flatMap((m) => m.doctor)
    .map((f) => {
      try {
        return f(ctx);
      } catch (err) {
        return {
          section: 'harness',
          name: f.name.replace(/^check/, '').toLowerCase(),
          status: 'error',
          detail: `check failed: ${err instanceof Error ? err.message : String(err)}`,
        };
      }
    });
}

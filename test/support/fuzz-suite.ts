/**
 * The in-process fuzz of the command-hook runner (runHook with the real adapters, real routeDispatch, real spool):
 * malformed payloads over every event of Claude Code, Codex, Cursor, Gemini CLI, Copilot CLI and Grok Build. Each must end
 * within the runner's deadline
 * (as the shipped manifest's command sets it, which must itself leave room under the manifest's timeout)
 * with nothing the harness would read as a decision, and the spool may record only the decisions actually delivered.
 * Used by test/unit/reliability/fuzz-hooks.test.ts (a quick share) and test/stress/fuzz-hooks.test.ts (>= 10,000).
 * Reproduce a failure with FUZZ_SEED=<seed in the suite name>.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_DEADLINE_CAPS, runHook } from '../../src/wiring/command-hooks.js';
import { deadlineFor } from '../../src/hook-runner/core.js';
import { resetSpoolFile } from '../../src/observer/spool.js';
import { clearRuntimeCache } from '../../src/config/runtime.js';
import {
  EVENTS,
  basePayload,
  decisionIn,
  isDefaultTierCorrection,
  malformed,
  manifestHook,
  namesNoModel,
  type Harness,
} from './fuzz.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261202);
const events = (Object.keys(EVENTS) as Harness[]).flatMap((h) => EVENTS[h].map((e) => [h, e] as const));
/** Cases run concurrently (runHook is async; Claude's parent read polls for up to 400 ms on a transcript miss). */
const BATCH = Number(process.env.FUZZ_BATCH ?? 40);
/** Scheduling slack on a loaded 2-core machine (cases share one event loop here; the process fuzz holds each hook
 * to the manifest's own timeout). */
const SLACK_MS = 1500;
/** Node's start and exit around the runner: the room a deadline must leave under the manifest's timeout. */
const PROCESS_MARGIN_MS = 500;

/**
 * The runner's deadline for an event as the manifest's command starts it: the runner's own rule (the env's
 * TIERGATE_HOOK_DEADLINE_MS or the default, capped per event), so the check below holds what the hook really does.
 */
const deadlineOf = (harness: string, event: string, env: Record<string, string>): number =>
  deadlineFor(harness, event, env, EVENT_DEADLINE_CAPS);

function spoolDecisions(home: string): string[] {
  const dir = join(home, 'data', 'spool');
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const f of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (!line) continue;
      const r = JSON.parse(line) as { type: string; decision?: { action: string } };
      if (r.type === 'dispatch' && r.decision && r.decision.action !== 'allow') out.push(r.decision.action);
    }
  }
  return out;
}

/**
 * Cases per event: the total spread over every event, and at least `minPerHarness` for each harness (spread over its
 * own events), so a harness with few events is not fuzzed less than the bound says.
 */
export function casesPlan(total: number, minPerHarness = 0): Map<string, number> {
  const even = Math.ceil(total / events.length);
  return new Map(
    events.map(([h, e]) => [`${h} ${e}`, Math.max(even, Math.ceil(minPerHarness / EVENTS[h].length))] as const),
  );
}

export function fuzzSuite(defaultTotal: number, minPerHarness = 0): void {
  const TOTAL = Number(process.env.FUZZ_CASES ?? defaultTotal);
  const plan = casesPlan(TOTAL, process.env.FUZZ_CASES ? 0 : minPerHarness);
  const planned = [...plan.values()].reduce((a, b) => a + b, 0);
  describe(`hook runner fuzz: ${planned} malformed payloads in-process (seed ${SEED})`, () => {
    // Events a manifest registers (an unregistered one is fuzzed for robustness but never run by the harness).
    const registered = events.filter(([h, e]) => manifestHook(h, e).registered);
    it.each(registered)(
      "%s %s: the runner's deadline (as the manifest sets it) fires before the manifest's timeout",
      (harness, event) => {
        const m = manifestHook(harness, event);
        expect(deadlineOf(harness, event, m.env) + PROCESS_MARGIN_MS).toBeLessThanOrEqual(m.timeoutMs);
      },
    );

    it.each(events)(
      '%s %s: no decision, no denial, within the deadline',
      async (harness, event) => {
        const dir = mkdtempSync(join(tmpdir(), `tg-fuzz-${harness}-`));
        // The env the manifest's command sets (Codex SessionEnd: a 2.5 s deadline under its 3 s timeout).
        const manifest = manifestHook(harness, event);
        const env = {
          ...manifest.env,
          TIERGATE_HOME: join(dir, 'tg'),
          HOME: join(dir, 'home'),
          PATH: process.env.PATH ?? '',
        };
        const deadline = deadlineOf(harness, event, env);
        resetSpoolFile();
        clearRuntimeCache();
        const base = basePayload(harness, event, dir);

        // The unmutated base decides nothing: otherwise a mutant's decision would prove nothing.
        const clean = await runHook(harness, event, Readable.from([Buffer.from(JSON.stringify(base))]), env);
        expect(decisionIn(harness, clean.answer?.stdout, clean.answer?.exitCode)).toBeNull();

        const cases = fc.sample(malformed(base), {
          numRuns: plan.get(`${harness} ${event}`)!,
          seed: SEED + events.findIndex(([h, e]) => h === harness && e === event),
        });
        const failures: string[] = [];
        const kinds = new Map<string, number>();
        let slowest = 0;
        let legit = 0;
        let checked = 0;
        for (let i = 0; i < cases.length; i += BATCH) {
          await Promise.all(
            cases.slice(i, i + BATCH).map(async (c, j) => {
              kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
              const t = performance.now();
              let out;
              try {
                out = await runHook(harness, event, Readable.from([c.input]), env);
              } catch (err) {
                failures.push(`#${i + j} ${c.kind}: runHook threw ${String(err)}`);
                return;
              }
              const ms = performance.now() - t;
              slowest = Math.max(slowest, ms);
              if (namesNoModel(harness, event, c.input) && isDefaultTierCorrection(out.answer?.stdout)) {
                legit++;
                return;
              }
              checked++;
              const why = decisionIn(harness, out.answer?.stdout, out.answer?.exitCode);
              if (why)
                failures.push(
                  `#${i + j} ${c.kind}: ${why} (input ${JSON.stringify(c.input.subarray(0, 160).toString('latin1'))})`,
                );
              if (ms > deadline + SLACK_MS)
                failures.push(`#${i + j} ${c.kind}: took ${ms.toFixed(0)} ms (deadline ${deadline} ms)`);
            }),
          );
        }
        expect(failures.slice(0, 10)).toEqual([]);
        // Most cases reached the decision check: the early return above (a legitimate default-tier correction) must
        // not swallow the run, or the fuzz would pass having checked nothing.
        expect(checked + legit).toBe(cases.length);
        expect(checked).toBeGreaterThanOrEqual(Math.ceil(cases.length * 0.8));
        // Only the well-formed no-model dispatches above were decided (as corrections to the default tier), none denied.
        const recorded = spoolDecisions(env.TIERGATE_HOME);
        expect(recorded.filter((a) => !a.includes('default-tier-applied') && a !== 'correct')).toEqual([]);
        expect(recorded.length).toBe(legit);
        // The generator reached every family of malformation for this event.
        expect([...kinds.keys()].length).toBeGreaterThanOrEqual(10);
        expect(slowest).toBeLessThan(deadline + SLACK_MS);
      },
      240_000,
    );
  });
}

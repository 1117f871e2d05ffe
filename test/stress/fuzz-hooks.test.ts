// The full in-process hook-runner fuzz: >= 10,000 malformed payloads over every event of every command harness, and
// >= 2,000 for each harness (Gemini CLI and Copilot CLI have four events each, Grok Build five).
import { describe, expect, it } from 'vitest';
import { EVENTS, type Harness } from '../support/fuzz.js';
import { casesPlan, fuzzSuite } from '../support/fuzz-suite.js';

const TOTAL = 10_200;
const MIN_PER_HARNESS = 2_000;

fuzzSuite(TOTAL, MIN_PER_HARNESS);

describe('the stress fuzz plan', () => {
  it(`covers every harness with >= ${MIN_PER_HARNESS} cases and >= ${TOTAL} in all`, () => {
    const plan = casesPlan(TOTAL, MIN_PER_HARNESS);
    const per = (h: Harness) => EVENTS[h].reduce((n, e) => n + plan.get(`${h} ${e}`)!, 0);
    expect(Object.keys(EVENTS).sort()).toEqual(['claude', 'codex', 'copilot', 'cursor', 'gemini', 'grok']);
    for (const h of Object.keys(EVENTS) as Harness[])
      expect({ h, n: per(h) >= MIN_PER_HARNESS }).toEqual({ h, n: true });
    expect([...plan.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(TOTAL);
  });
});

/**
 * The budget lines name the harnesses that report a session's total cost from the registry (HarnessModule.sessionCost),
 * never from a list of names: a new harness with the member is named with nothing else changed.
 */
import { describe, expect, it } from 'vitest';
import { harnessList } from '../../../src/adapters/index.js';
import { sessionCostSources } from '../../../src/report/budget-lines.js';
import { spendStateFrom } from '../../../src/observer/spend-summary.js';

describe('session-cost harnesses, from the registry', () => {
  it('are the modules with sessionCost, in registry order', () => {
    expect(sessionCostSources()).toBe("Claude Code's hooks module, OpenCode and pi");
    expect(sessionCostSources([...harnessList(), { sessionCost: { via: 'New CLI' } }])).toBe(
      "Claude Code's hooks module, OpenCode, pi and New CLI",
    );
    expect(sessionCostSources([{ sessionCost: { via: 'New CLI' } }, {}])).toBe('New CLI');
    expect(sessionCostSources([])).toBe('no harness');
  });

  it('the day and month figures need no harness', () => {
    const now = Date.parse('2026-12-04T12:00:00Z');
    const s = spendStateFrom({ file: null, error: null }, null, null, now);
    expect(s).toMatchObject({ session: null, sessionTotal: null, error: null });
    expect(s.day).toEqual({ pico: 0n, unknown: 0 });
  });
});

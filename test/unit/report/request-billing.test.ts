/**
 * The report's line on runs billed by request is worded from the registry (descriptor requestBilling), not from a
 * harness named in report code (issue 30 item 2).
 */
import { describe, expect, it } from 'vitest';
import { HARNESS_IDS } from '../../../src/contracts/harness.js';
import { DESCRIPTORS } from '../../../src/descriptors/index.js';
import { requestBillingText } from '../../../src/report/cells.js';

describe('requestBillingText', () => {
  it('names the harnesses whose descriptor bills by request, their unit and who bills', () => {
    const billers = HARNESS_IDS.filter((h) => DESCRIPTORS[h].requestBilling);
    expect(billers).toEqual(['copilot']);
    const { unit, by } = DESCRIPTORS.copilot.requestBilling!;
    expect(requestBillingText({ runs: 1, min: 3, max: 3 })).toBe(
      `${unit}: 1 ${DESCRIPTORS.copilot.name} run was billed by ${by} at a 3x multiplier (cost above: per-token prices of the same models).`,
    );
    expect(requestBillingText({ runs: 1200, min: 0.33, max: 1 })).toMatch(
      /^premium requests: 1,200 GitHub Copilot CLI runs were billed by GitHub at a 0\.33x–1x multiplier/,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { usageFromRecord } from '../../../../src/adapters/copilot/events.js';

describe('copilot usageFromRecord', () => {
  it('inputTokens includes the cache reads and writes, which are taken out; junk counts are 0', () => {
    expect(
      usageFromRecord({
        inputTokens: 1002,
        cacheReadTokens: 502,
        cacheWriteTokens: 100,
        outputTokens: 40.7,
        reasoningTokens: 'x',
      }),
    ).toEqual({
      input: 400,
      output: 40,
      cacheRead: 502,
      cacheWrite5m: 100,
      cacheWrite1h: 0,
      reasoning: 0,
      requests: 1,
    });
    expect(usageFromRecord({ inputTokens: 10, cacheReadTokens: 50 }).input).toBe(0);
  });
});

/** `tiergate scan`'s summary: money with thousands separators, counts with separators, a count of one in the singular. */
import { describe, expect, it } from 'vitest';
import { formatSummary } from '../../../src/cli/commands/scan.js';
import type { ScanSummary } from '../../../src/collect/scan.js';

const PICO_PER_USD = 10n ** 12n;

function summary(
  over: Partial<Omit<ScanSummary, 'totals'>> & { totals?: Partial<ScanSummary['totals']> },
): ScanSummary {
  return {
    files: 1,
    skippedBySince: 0,
    unchanged: 0,
    parsed: 1,
    failed: 0,
    bytes: 2_000_000,
    requestsSeen: 1,
    requestsNew: 1,
    dispatches: 0,
    completions: 0,
    stores: [],
    ms: 1200,
    ...over,
    totals: { requests: 1, pricedPico: 0n, unpricedRequests: 0, unpricedModels: [], ...over.totals },
  };
}

const roots = [{ harness: 'claude' as const, dir: '/home/u/.claude/projects' }];

describe('scan summary', () => {
  it('prints $12,660.83, not $12660.83, and 12,345 requests with separators', () => {
    const text = formatSummary(
      summary({
        files: 4321,
        parsed: 4321,
        requestsSeen: 12_345,
        totals: { requests: 12_345, pricedPico: (1_266_083n * PICO_PER_USD) / 100n },
      }),
      roots,
    );
    expect(text).toContain('total over all scanned requests: $12,660.83 (12,345 requests)');
    expect(text).toContain('scanned 4,321 of 4,321 transcript files');
    expect(text).toContain('requests: 12,345 read');
  });

  it('one file, one request: singular', () => {
    const text = formatSummary(summary({ totals: { requests: 1, unpricedRequests: 1, unpricedModels: ['x'] } }), roots);
    expect(text).toContain('scanned 1 of 1 transcript file (');
    expect(text).toContain('(1 request)');
    expect(text).toContain('unpriced: 1 request on x');
  });

  it("names each store read (Hermes' state.db), and why one was not", () => {
    const text = formatSummary(
      summary({
        stores: [
          { harness: 'hermes', path: '/h/state.db', children: 1, error: null },
          { harness: 'hermes', path: '/g/state.db', children: 0, error: 'SqliteError: database is locked' },
        ],
      }),
      roots,
    );
    expect(text).toContain('  hermes store /h/state.db: 1 subagent run read\n');
    expect(text).toContain('  hermes store /g/state.db: not read (SqliteError: database is locked)\n');
  });
});

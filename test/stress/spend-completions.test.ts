/**
 * 256 completions at once, one process each (issue 28, item 2): none is lost to the spend summary's lock (each is
 * journaled without it and merged later), and every reader counts them all. The default suite runs 64
 * (test/unit/observer/spend-concurrency.test.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeSpend } from '../../src/observer/spend-record.js';
import { readSpend } from '../../src/observer/spend-read.js';
import { bundleWorker } from '../support/worker-bundle.js';

const root = join(import.meta.dirname, '../..');
const WRITERS = 256;

describe('completions at once', () => {
  it(`${WRITERS} processes, one completion each: none lost`, async () => {
    const script = await bundleWorker(join(root, 'test/unit/observer/spend-worker.ts'), 'spend-worker-stress');
    const dir = mkdtempSync(join(tmpdir(), 'tg-spend-stress-'));
    const env = { PATH: process.env.PATH ?? '', HOME: dir, TIERGATE_HOME: join(dir, 'tg') };
    mkdirSync(join(env.TIERGATE_HOME, 'data'), { recursive: true });
    const codes = await Promise.all(
      Array.from(
        { length: WRITERS },
        (_, w) =>
          new Promise<number | null>((resolve, reject) => {
            const p = spawn(process.execPath, [script, String(w), '1'], { env, stdio: 'ignore' });
            p.on('error', reject);
            p.on('exit', resolve);
          }),
      ),
    );
    expect(codes.every((c) => c === 0)).toBe(true);
    const day = readSpend(env, 'claude', 'sess-1', Date.now()).day;
    console.log(`completions at once: ${WRITERS - Number(day.pico / 1000n)} lost of ${WRITERS}`);
    expect(day).toEqual({ pico: BigInt(WRITERS) * 1000n, unknown: 0 });
    // Merged into the summary, still each once.
    expect(mergeSpend(env)).toBe(true);
    expect(readSpend(env, 'claude', 'sess-1', Date.now()).day.pico).toBe(BigInt(WRITERS) * 1000n);
  });
});

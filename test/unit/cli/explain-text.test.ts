/** `tiergate explain`'s rate table says what a prompt-size row means instead of a bare "at prompt 200001". */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { runCaptured } from '../../support/cli.js';

const home = mkdtempSync(join(tmpdir(), 'tg-explain-text-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

it('rows are labelled by prompt size in words, with what a long-context row is', async () => {
  // Sonnet 4.5 and Gemini 2.5 Pro both charge more above 200,000 prompt tokens (the bundled snapshot).
  const r = await runCaptured(
    main,
    ['explain', '--parent', 'claude-sonnet-4-5', '--child', 'gemini-2.5-pro'],
    { TIERGATE_HOME: home, TIERGATE_PRICE_REFRESH: 'off', COLUMNS: '120' },
    home,
  );
  expect(r.code).toBe(0);
  expect(r.out).not.toContain('at prompt');
  expect(r.out).toMatch(/rate \(USD \/ 1M tokens\) +prompt size +parent +child +child is/);
  expect(r.out).toMatch(/\n {2}input +shorter prompts +3 +1\.25 +cheaper/);
  expect(r.out).toMatch(/\n {2}input +from 200,001 tokens +3 +2\.5 +cheaper/);
  expect(r.out).toContain('from N tokens: a long-context rate, charged once a prompt reaches N tokens');
});

/**
 * The README shows `tiergate demo` as an 80-column terminal shows it: the block under "The demo, as an 80-column
 * terminal shows it" is the real output of `COLUMNS=80 TZ=America/Los_Angeles tiergate demo` (npm test builds first),
 * but for the temporary ledger's random name. When the demo's output changes, paste it again from that command.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');

it('the README opens with the two set-up commands and shows the demo at 80 columns as it prints', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  expect(readme.split('\n').slice(0, 6)).toEqual([
    '# tiergate',
    '',
    '```sh',
    'npm install && npx tiergate demo     # run the main job on built-in defaults',
    'npm test                             # pass the tests (what .ci/run runs)',
    '```',
  ]);
  const shown = /## The demo, as an 80-column terminal shows it\n[\s\S]*?```text\n([\s\S]*?)\n```/.exec(readme)?.[1];
  expect(shown).toBeDefined();
  const home = mkdtempSync(join(tmpdir(), 'tg-readme-demo-'));
  try {
    const out = execFileSync(process.execPath, [join(root, 'dist', 'cli.js'), 'demo'], {
      env: { PATH: process.env.PATH ?? '', HOME: home, TMPDIR: '/tmp', COLUMNS: '80', TZ: 'America/Los_Angeles' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const ledger = (s: string) => s.replace(/tiergate-demo-[A-Za-z0-9]+/g, 'tiergate-demo-XXXXXX');
    expect(ledger(shown!)).toBe(ledger(out.trimEnd()));
    expect(Math.max(...shown!.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(80);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

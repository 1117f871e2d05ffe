/**
 * Shipped code has no switch that exists only so tests can break it (issue 17 item 5): tests inject faults from outside
 * (a dependency that hangs or throws, a regular file where a directory goes, a locked ledger, a killed process). A
 * variable like TIERGATE_FAULT in a bundle is one a user's environment could set too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.(ts|mts|js|mjs)$/.test(name)) out.push(p);
  }
  return out;
}

const SWITCH = /TIERGATE_(FAULT|TEST|INJECT|CRASH)[A-Z_]*|injectFault|faultInjection/;

describe('no fault injection in shipped code', () => {
  it('src, plugins and extensions read no test-only fault switch', () => {
    const files = ['src', 'plugins', 'extensions'].flatMap((d) => sources(join(root, d)));
    expect(files.length).toBeGreaterThan(100);
    const hits = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (SWITCH.test(line) ? [`${relative(root, f)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });
});

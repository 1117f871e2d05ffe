/**
 * The pi releases the pi suites run against, each under the Node it needs: 0.73.1 (`@mariozechner/pi-coding-agent`,
 * the last of that package) under the test's own Node 20, and 1.6.0 (`@earendil-works/pi-coding-agent`, where pi
 * moved; `engines.node >= 22.19`, it exits at load on Node 20) under the registry's Node 22 (scripts/install-harnesses.mjs
 * pi, pi16, node22). Each line's binary is installed on first use; a missing one skips outside CI and fails under it.
 */
import { dirname, join } from 'node:path';
import { harnessBin } from './harness-bin.js';

export type PiLine = {
  label: string;
  ok: boolean;
  bin: string;
  /** The directory of the `node` pi runs under (first on its PATH: pi's `#!/usr/bin/env node` and its children). */
  nodeDir: string;
  /** pi's own example `subagent` tool, shipped in the package. */
  exampleTool: string;
};

function line(name: 'pi' | 'pi16', pkg: string, label: string, node: 'self' | 'node22'): PiLine {
  const pi = harnessBin(name);
  const n = node === 'self' ? ({ ok: true, bin: process.execPath } as const) : harnessBin(node);
  const ok = pi.ok && n.ok;
  const bin = pi.ok ? pi.bin : '';
  return {
    label,
    ok,
    bin,
    nodeDir: n.ok ? dirname(n.bin) : '',
    exampleTool: ok ? join(bin, '../..', pkg, 'examples/extensions/subagent/index.ts') : '',
  };
}

export const piLines = (): PiLine[] => [
  line('pi', '@mariozechner/pi-coding-agent', 'pi 0.73.1 (Node 20)', 'self'),
  line('pi16', '@earendil-works/pi-coding-agent', 'pi 1.6.0 (Node 22)', 'node22'),
];

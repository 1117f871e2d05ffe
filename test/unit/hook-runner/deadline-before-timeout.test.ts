/**
 * The runner's own deadline (io/deadline.ts through runHookWith) must fire before the harness kills the hook: a hook the
 * harness times out has printed nothing and recorded nothing, and some harnesses treat a killed hook as a failure. For
 * every command hook a shipped manifest runs, the deadline tiergate applies to that event (its cap, and a
 * TIERGATE_HOOK_DEADLINE_MS the command line sets) is below the manifest's timeout, with room to print and exit.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deadlineFor } from '../../../src/hook-runner/core.js';
import { EVENT_DEADLINE_CAPS } from '../../../src/descriptors/index.js';
import { HOOK_TIMEOUT_MS as GEMINI_TIMEOUT_MS } from '../../../src/adapters/gemini/extension.js';

const root = join(import.meta.dirname, '../../..');
/** What printing the answer and exiting may take after the deadline fired (a loaded machine: seen up to ~300 ms). */
const EXIT_ROOM_MS = 500;

type Hook = { harness: string; event: string; envDeadline: string | undefined; timeoutMs: number; file: string };

/** Every `dist/hook.cjs <harness> <event>` command of a manifest, with its timeout in ms. */
function commands(file: string, unitMs: number): Hook[] {
  const found: Hook[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (typeof v !== 'object' || v === null) return;
    const o = v as Record<string, unknown>;
    const cmd = typeof o.command === 'string' ? o.command : typeof o.bash === 'string' ? o.bash : null;
    const timeout = typeof o.timeout === 'number' ? o.timeout : typeof o.timeoutSec === 'number' ? o.timeoutSec : null;
    const m = cmd ? /dist\/hook\.cjs"? (\w+) (\w+)/.exec(cmd) : null;
    if (m && timeout !== null) {
      const envDeadline = /TIERGATE_HOOK_DEADLINE_MS=(\d+)/.exec(cmd!)?.[1];
      found.push({ harness: m[1]!, event: m[2]!, envDeadline, timeoutMs: timeout * unitMs, file });
    }
    Object.values(o).forEach(walk);
  };
  walk(JSON.parse(readFileSync(join(root, file), 'utf8')));
  return found;
}

const hooks = [
  ...commands('hooks.json', 1000),
  ...commands('hooks-codex.json', 1000),
  ...commands('hooks-copilot.json', 1000),
  ...commands('hooks-cursor.json', 1000),
  ...commands('hooks-grok.json', 1000),
];

describe('the runner deadline fires before the harness timeout', () => {
  it('finds the shipped command hooks of every manifest', () => {
    expect(new Set(hooks.map((h) => h.file)).size).toBe(5);
    expect(hooks.length).toBeGreaterThanOrEqual(17);
  });

  for (const h of hooks) {
    it(`${h.file}: ${h.harness} ${h.event}`, () => {
      const ms = deadlineFor(h.harness, h.event, { TIERGATE_HOOK_DEADLINE_MS: h.envDeadline }, EVENT_DEADLINE_CAPS);
      expect(ms + EXIT_ROOM_MS).toBeLessThanOrEqual(h.timeoutMs);
    });
  }

  it("Gemini CLI's extension timeout (ms) leaves the default deadline room too", () => {
    for (const event of ['BeforeTool', 'AfterAgent', 'SessionEnd'])
      expect(deadlineFor('gemini', event, {}, EVENT_DEADLINE_CAPS) + EXIT_ROOM_MS).toBeLessThanOrEqual(
        GEMINI_TIMEOUT_MS,
      );
  });
});

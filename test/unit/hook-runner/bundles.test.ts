/**
 * Every event a manifest registers is served by the bundle dist/hook.cjs picks for it, with the same handler the full
 * table has: a dispatch event missing from the dispatch bundle would silently allow everything.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_ADAPTERS } from '../../../src/wiring/command-hooks.js';
import { DISPATCH_EVENTS } from '../../../src/descriptors/index.js';
import { bundleFor as bundleForEvents } from '../../../src/hook-runner/bundles.js';
import type { CommandAdapter } from '../../../src/contracts/hook.js';

/** dist/hook.cjs's choice, with the table src/entries/hook.ts hands it. */
const bundleFor = (harness: string, event: string) => bundleForEvents(DISPATCH_EVENTS, harness, event);

/** The adapter a dispatch bundle's entry runs (src/entries/hook-dispatch-<harness>.ts). */
const dispatchAdapter = async (harness: string) =>
  ((await import(`../../../src/entries/hook-dispatch-${harness}.ts`)) as { adapter: CommandAdapter }).adapter;

const root = join(import.meta.dirname, '../../..');
const manifestEvents = (file: string): [string, string][] => {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/dist\/hook\.cjs\\?"? (claude|codex|cursor) ([A-Za-z]+)/g)].map((m) => [m[1]!, m[2]!]);
};

describe('hook bundles', () => {
  const events = [
    ...manifestEvents('hooks.json'),
    ...manifestEvents('hooks-codex.json'),
    ...manifestEvents('hooks-cursor.json'),
  ];

  it('finds the manifests’ events', () => {
    expect(events).toContainEqual(['claude', 'PreToolUse']);
    expect(events).toContainEqual(['codex', 'PreToolUse']);
    expect(events).toContainEqual(['cursor', 'subagentStart']);
    expect(events.length).toBeGreaterThanOrEqual(11);
  });

  it('routes every manifest event to a bundle whose table handles it', async () => {
    for (const [harness, event] of events) {
      const adapter =
        bundleFor(harness, event) === 'hook-events'
          ? await COMMAND_ADAPTERS[harness]!()
          : await dispatchAdapter(harness);
      expect({ harness, event, handled: typeof adapter.handlers[event] }).toEqual({
        harness,
        event,
        handled: 'function',
      });
    }
  });

  it('a dispatch bundle exists per harness, built, and each handles exactly the dispatch events, with the full table’s fail-open answers', async () => {
    for (const [harness, list] of Object.entries(DISPATCH_EVENTS)) {
      const lean = await dispatchAdapter(harness);
      const full = await COMMAND_ADAPTERS[harness]!();
      for (const event of list) {
        expect(bundleFor(harness, event)).toBe(`hook-dispatch-${harness}`);
        expect(lean.failOpen?.[event] ?? null).toEqual(full.failOpen?.[event] ?? null);
      }
      expect(Object.keys(lean.handlers).filter((e) => !list.includes(e))).toEqual(
        harness === 'cursor' ? ['subagentStop'] : [],
      );
    }
    for (const harness of Object.keys(DISPATCH_EVENTS))
      expect(existsSync(join(root, 'dist', `hook-dispatch-${harness}.cjs`))).toBe(true);
    expect(bundleFor('codex', 'SubagentStop')).toBe('hook-events');
    expect(bundleFor('hasOwnProperty', 'PreToolUse')).toBe('hook-events');
  });
});

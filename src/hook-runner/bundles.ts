/**
 * Which bundle serves which hook: each harness's dispatch events run its own dist/hook-dispatch-<harness>.cjs (that
 * harness's routing only, as a dispatch waits on it); every other event runs dist/hook-events.cjs. Pure.
 */

/** Harness id -> the events its dispatch bundle serves (the descriptors', handed in: the runner imports no adapter). */
export type DispatchEvents = Readonly<Record<string, readonly string[]>>;
export type HookBundle = `hook-dispatch-${string}` | 'hook-events';

// biome-ignore format: parenthesised, so V8 compiles it with dist/hook.cjs's top level (io/code-cache-file.ts)
export const bundleFor = (function bundleFor(events: DispatchEvents, harness: string, event: string): HookBundle {
  return Object.hasOwn(events, harness) && events[harness]!.includes(event)
    ? `hook-dispatch-${harness}`
    : 'hook-events';
});

/** How every manifest and installer starts node for dist/hook.cjs: it needs no real path (its bundles sit beside it). */
export const HOOK_NODE_FLAGS = '--preserve-symlinks-main';

/**
 * Which bundle serves which hook. A dispatch hook sits on the harness's critical path and its process start is its whole
 * cost, so each harness's dispatch events run its own dist/hook-dispatch-<harness>.cjs (that harness's routing only: one
 * bundle for all three was ~0.4 ms more per hook, bench/README.md "Session 4"); every other event runs
 * dist/hook-events.cjs (transcripts, spool drain, ledger, refresh). All start from dist/hook.cjs (loader.ts). Pure.
 */
/**
 * Harness id -> the native events its dispatch bundle serves: the descriptors' dispatchEvents
 * (src/adapters/descriptors.ts DISPATCH_EVENTS), handed in by src/entries/hook.ts, since the runner imports no adapter.
 * Looked up by any argv word, so keyed by string.
 */
export type DispatchEvents = Readonly<Record<string, readonly string[]>>;
export type HookBundle = `hook-dispatch-${string}` | 'hook-events';

export function bundleFor(events: DispatchEvents, harness: string, event: string): HookBundle {
  return Object.hasOwn(events, harness) && events[harness]!.includes(event)
    ? `hook-dispatch-${harness}`
    : 'hook-events';
}

/**
 * How every manifest and installer starts node for dist/hook.cjs. `--preserve-symlinks-main` skips the realpath of the
 * main script (a JavaScript walk with an lstat per path component): ~0.8 ms of a hook process on a 4-component path,
 * more under a plugin cache (bench/README.md, "Session 5"). The hook needs no real path: its bundles sit beside it.
 */
export const HOOK_NODE_FLAGS = '--preserve-symlinks-main';

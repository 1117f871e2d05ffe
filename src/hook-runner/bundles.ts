/**
 * Which bundle serves which hook. A dispatch hook sits on the harness's critical path and its process start is its whole
 * cost, so the dispatch events run dist/hook-dispatch.cjs (routing only); every other event runs dist/hook-events.cjs
 * (transcripts, spool drain, ledger, refresh). Both start from dist/hook.cjs (loader.ts). Pure data.
 */
export const DISPATCH_EVENTS: Readonly<Record<string, readonly string[]>> = {
  claude: ['PreToolUse'],
  codex: ['PreToolUse'],
  cursor: ['preToolUse', 'subagentStart'],
};

export type HookBundle = 'hook-dispatch' | 'hook-events';

export function bundleFor(harness: string, event: string): HookBundle {
  return Object.hasOwn(DISPATCH_EVENTS, harness) && DISPATCH_EVENTS[harness]!.includes(event) ? 'hook-dispatch' : 'hook-events';
}

/**
 * Which code-cache file a hook uses within its bundle: the harness's own. A cache holds the functions its first run
 * compiled, so one file shared by the harnesses would serve the first one's handlers to all, and the others would compile
 * theirs on every run. Only names this table knows become part of a file name (argv is not a path).
 */
export function cacheVariant(harness: string): string {
  return Object.hasOwn(DISPATCH_EVENTS, harness) ? harness : 'other';
}

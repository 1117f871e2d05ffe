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

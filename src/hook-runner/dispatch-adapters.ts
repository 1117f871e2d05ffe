/**
 * The dispatch bundle's adapter table: only the handlers of bundles.ts's DISPATCH_EVENTS, so a dispatch hook never
 * compiles the completion side. Cursor's adapter is small and whole.
 */
import type { AdapterTable } from './types.js';

export const DISPATCH_ADAPTERS: AdapterTable = {
  codex: async () => (await import('../adapters/codex/dispatch-command.js')).dispatchAdapter,
  claude: async () => (await import('../adapters/claude/dispatch-command.js')).dispatchAdapter,
  cursor: async () => (await import('../adapters/cursor/command.js')).adapter,
};

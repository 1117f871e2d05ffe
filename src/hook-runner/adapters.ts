/**
 * Which command adapter serves which harness. Loaded lazily so one hook process evaluates only its own adapter
 * (start-up time is the whole cost of a command hook).
 */
import type { AdapterTable } from '../contracts/hook.js';

export const COMMAND_ADAPTERS: AdapterTable = {
  codex: () => import('../adapters/codex/command.js'),
  claude: async () => (await import('../adapters/claude/command.js')).adapter,
  cursor: async () => (await import('../adapters/cursor/command.js')).adapter,
};

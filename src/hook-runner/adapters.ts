/**
 * Which command adapter serves which harness. Loaded lazily so one hook process evaluates only its own adapter
 * (start-up time is the whole cost of a command hook).
 */
import type { CommandAdapter } from './types.js';

export const COMMAND_ADAPTERS: Record<string, () => Promise<CommandAdapter>> = {
};

/** Cursor's capability is defined with the others (src/adapters/capabilities.ts); it does not depend on the policy. */
import { capabilityFor } from '../capabilities.js';
import { DEFAULT_POLICY } from '../../config/defaults.js';

export const CURSOR_CAPABILITY = capabilityFor('cursor', DEFAULT_POLICY);

/** Requested-model values that name no model: the child runs on the parent's (cursor.md §3, §8 trap 2). */
export const INHERIT_VALUES = new Set(['', 'inherit']);

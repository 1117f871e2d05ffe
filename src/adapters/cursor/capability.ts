/** Cursor's capability (src/descriptors/cursor.ts); it does not depend on the policy. */
import { DESCRIPTORS } from '../../descriptors/index.js';

export const CURSOR_CAPABILITY = DESCRIPTORS.cursor.capability({});

/** Requested-model values that name no model: the child runs on the parent's (cursor.md §3, §8 trap 2). */
export const INHERIT_VALUES = new Set(['', 'inherit']);

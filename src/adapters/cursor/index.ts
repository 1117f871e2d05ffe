/** Cursor (documentation only): command hooks in ~/.cursor/hooks.json; its hooks carry no usage. */
import type { HarnessModule } from '../harness-module.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import { checkCursor } from './doctor.js';
import * as installer from './install.js';

export const cursor: HarnessModule = {
  ...DESCRIPTORS.cursor,
  installer,
  doctor: [checkCursor],
  demo: async () => (await import('./demo.js')).demo,
};

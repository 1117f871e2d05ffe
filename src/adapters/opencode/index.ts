/** OpenCode: an in-process plugin (plugins/opencode -> dist/opencode.js) listed in its config. */
import type { HarnessModule } from '../harness-module.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import { checkOpencode } from './doctor.js';
import * as installer from './install.js';

export const opencode: HarnessModule = {
  ...DESCRIPTORS.opencode,
  // The plugin sums the parent's and its child sessions' costs from the SDK.
  sessionCost: { via: 'OpenCode' },
  installer,
  doctor: [checkOpencode],
  demo: async () => (await import('./demo.js')).demo,
};

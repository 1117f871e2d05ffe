/** pi: an in-process extension (extensions/pi -> dist/pi.js) in its settings' packages, and tiergate's tier agents. */
import type { HarnessModule } from '../harness-module.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import { checkPi, checkPiAgents, checkPiRelease } from './doctor.js';
import * as installer from './install.js';

export const pi: HarnessModule = {
  ...DESCRIPTORS.pi,
  // The extension sums pi's own per-message costs of the session.
  sessionCost: { via: 'pi' },
  installer,
  doctor: [checkPi, checkPiAgents, checkPiRelease],
  demo: async () => (await import('./demo.js')).demo,
};

/**
 * GitHub Copilot CLI: command hooks (hooks-copilot.json, named by the plugin's .plugin/plugin.json), its session files
 * under $COPILOT_HOME/session-state, and a plugin installed from the package's local marketplace.
 */
import { join } from 'node:path';
import type { HarnessModule } from '../harness-module.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import { checkCopilot, checkCopilotMultipliers } from './doctor.js';
import * as installer from './install.js';
import { copilotTranscripts } from './transcript.js';

export const copilot: HarnessModule = {
  ...DESCRIPTORS.copilot,
  transcripts: copilotTranscripts,
  // $COPILOT_HOME/session-state/<session>/events.jsonl (1.0.102: COPILOT_HOME, else ~/.copilot).
  scanRoots: (env, home) => [join(env.COPILOT_HOME || join(home, '.copilot'), 'session-state')],
  installer,
  doctor: [checkCopilot, checkCopilotMultipliers],
  // The call's model, the custom agent's `model:` (user, then project folders), else the parent's, as the hook reads them.
  explainAgent: async (input) => (await import('./explain-agent.js')).explainCopilotAgent(input),
  demo: async () => (await import('./demo.js')).demo,
};

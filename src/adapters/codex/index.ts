/** Codex CLI: command hooks (hooks-codex.json), rollout transcripts, a plugin in Codex's marketplace. */
import { join } from 'node:path';
import type { HarnessModule } from '../harness-module.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import { checkCodex } from './doctor.js';
import * as installer from './install.js';
import { codexTranscripts } from './transcript.js';

export const codex: HarnessModule = {
  ...DESCRIPTORS.codex,
  transcripts: codexTranscripts,
  // $CODEX_HOME/sessions/** (codex-cli 0.169.0).
  scanRoots: (env, home) => [join(env.CODEX_HOME || join(home, '.codex'), 'sessions')],
  installer,
  doctor: [checkCodex],
  demo: async () => (await import('./demo.js')).demo,
};

/**
 * Grok Build (xAI's `grok`, npm @xai-official/grok): command hooks from its global hooks folder
 * ($GROK_HOME/hooks/tiergate.json, install.ts), session folders under $GROK_HOME/sessions.
 */
import { join } from 'node:path';
import type { HarnessModule } from '../harness-module.js';
import { grokHome } from './catalog.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import { checkGrok } from './doctor.js';
import * as installer from './install.js';
import { grokTranscripts } from './transcript.js';

export const grok: HarnessModule = {
  ...DESCRIPTORS.grok,
  transcripts: grokTranscripts,
  // $GROK_HOME/sessions/<url-encoded cwd>/<session id>/updates.jsonl (1.0.41: GROK_HOME, else ~/.grok).
  scanRoots: (env, home) => [join(grokHome({ ...env, HOME: env.HOME || home }), 'sessions')],
  installer,
  doctor: [checkGrok],
  // The call's model, the role's, the per-type pin, the agent file's, else the parent's, as the hook reads them.
  explainAgent: async (input) => (await import('./explain-agent.js')).explainGrokAgent(input),
  demo: async () => (await import('./demo.js')).demo,
};

/**
 * Gemini CLI: an extension (extension.ts) whose command hooks decide at BeforeTool[invoke_agent] and record at
 * AfterTool[invoke_agent], chat files under `<gemini>/tmp/<project>/chats/`, installed with `gemini extensions install`.
 */
import { join } from 'node:path';
import type { HarnessModule } from '../harness-module.js';
import { geminiDir } from './agents.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import { checkGemini } from './doctor.js';
import * as installer from './install.js';
import { geminiTranscripts } from './transcript.js';

export const gemini: HarnessModule = {
  ...DESCRIPTORS.gemini,
  transcripts: geminiTranscripts,
  // $GEMINI_CLI_HOME/.gemini (else ~/.gemini) tmp/<project>/chats/** (0.61.0).
  scanRoots: (env, home) => [join(geminiDir({ ...env, HOME: env.HOME || home }), 'tmp')],
  installer,
  doctor: [checkGemini],
  // Settings overrides, agent files (project acknowledged, user, extensions), built-ins, the id as sent.
  explainAgent: async (input) => (await import('./explain-agent.js')).explainGeminiAgent(input),
  demo: async () => (await import('./demo.js')).demo,
};

/**
 * Claude Code: a plugin (hooks.json command hooks, and the hooks module dist/claude-module.js where Claude Code loads
 * it), its transcripts under the config dir's projects/, and the module's one-file-per-record spool.
 */
import type { HarnessModule } from '../harness-module.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import { checkClaude } from './doctor.js';
import * as installer from './install.js';
import { drainModuleSpool } from './module-spool.js';
import { claudeTranscripts } from './transcript.js';
import { joinPath } from '../../io/paths.js';

export const claude: HarnessModule = {
  ...DESCRIPTORS.claude,
  transcripts: claudeTranscripts,
  // CLAUDE_CONFIG_DIR (comma-separated), else ~/.claude and $XDG_CONFIG_HOME/claude: projects/** in each.
  scanRoots: (env, home) => {
    const dirs = env.CLAUDE_CONFIG_DIR
      ? env.CLAUDE_CONFIG_DIR.split(',')
          .map((d) => d.trim())
          .filter(Boolean)
      : [joinPath(home, '.claude'), joinPath(env.XDG_CONFIG_HOME || joinPath(home, '.config'), 'claude')];
    return dirs.map((d) => joinPath(d, 'projects'));
  },
  // The hooks module cannot append: its one-file-per-record spool is moved into the shared one first.
  beforeDrain: drainModuleSpool,
  // The hooks module reads $.session.usage().cost.usd at agent.spawn; the command hooks have no such figure.
  sessionCost: { via: "Claude Code's hooks module" },
  installer,
  doctor: [checkClaude],
  // Agent files (project, user, plugins), CLAUDE_CODE_SUBAGENT_MODEL and the call's model, as the dispatch hook reads them.
  explainAgent: async (input) => {
    const { chainLine, explainAgent } = await import('./explain-agent.js');
    const e = await explainAgent(input);
    return {
      observation: e.observation,
      chain: (decision, prices) => chainLine(e, decision, prices),
      details: { definition: e.definition, child: e.child },
    };
  },
  demo: async () => (await import('./demo.js')).demo,
};

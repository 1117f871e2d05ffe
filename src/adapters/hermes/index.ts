/**
 * Hermes Agent (NousResearch `hermes-agent` 0.19.0, PyPI): a Python plugin in $HERMES_HOME/plugins/tiergate (install.ts)
 * that asks the dispatch hook at delegate_task and spools the children's completions itself; `tiergate scan` reads
 * Hermes' own state.db for children whose spool lines were lost (state-db.ts).
 */
import type { HarnessModule } from '../harness-module.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import { checkHermes } from './doctor.js';
import { planInstall, planUninstall, probe } from './install.js';
import { readStateDb, stateDbPath } from './state-db.js';

export const hermes: HarnessModule = {
  ...DESCRIPTORS.hermes,
  // Its children's completions are spooled by the plugin; state.db fills those lost or late (`tiergate scan`).
  stores: { paths: (env, home) => [stateDbPath(env, home)], read: readStateDb },
  installer: { planInstall, planUninstall, probe },
  doctor: [checkHermes],
  demo: async () => (await import('./demo.js')).demo,
};

/**
 * Hermes Agent (NousResearch `hermes-agent` 0.19.0, PyPI): a Python plugin in $HERMES_HOME/plugins/tiergate (install.ts)
 * that asks the dispatch hook at delegate_task and spools the children's completions itself.
 */
import type { HarnessModule } from '../harness-module.js';
import { DESCRIPTORS } from '../../descriptors/index.js';
import { checkHermes } from './doctor.js';
import { planInstall, planUninstall, probe } from './install.js';

export const hermes: HarnessModule = {
  ...DESCRIPTORS.hermes,
  installer: { planInstall, planUninstall, probe },
  doctor: [checkHermes],
  demo: async () => (await import('./demo.js')).demo,
};

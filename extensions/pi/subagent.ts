/**
 * tiergate's opt-in `subagent` tool for pi (bundled to dist/pi-subagent.js): takes a tier, runs the child on the
 * tier's model. Load it next to dist/pi.js (the gate). Do not load it together with another `subagent` tool.
 * Registration never throws: pi exits when an extension throws while loading (0.73.1, seen).
 */
import { isPiChild } from '../../src/adapters/pi/extension.js';
import { createTierSubagentTool } from '../../src/adapters/pi/subagent-tool.js';
import { diagnose, errorText } from '../../src/io/diagnostics.js';
import { runCollect } from '../../src/io/processes.js';
import { policySlowPath } from '../../src/config/policy-load.js';
import { loadRuntime, usePolicySlowPath } from '../../src/config/runtime.js';

usePolicySlowPath(() => policySlowPath);

type Api = { registerTool(tool: unknown): void };

export default function tiergateSubagent(pi: Api): void {
  try {
    // Children it starts do not get the tool again (no recursive fan-out; OpenCode denies `task` to children too).
    if (isPiChild(process.argv, process.env)) return;
    pi.registerTool(
      createTierSubagentTool({
        env: process.env,
        tierModel: (tier, ctx) => {
          const cwd = typeof ctx.cwd === 'string' ? ctx.cwd : null;
          return loadRuntime(process.env, cwd).policy.tiers.pi[tier] ?? null;
        },
        run: runCollect,
        piCommand: () => ({ command: process.execPath, args: process.argv[1] ? [process.argv[1]] : [] }),
      }),
    );
  } catch (err) {
    diagnose('error', 'pi:subagent-tool:load', errorText(err));
  }
}

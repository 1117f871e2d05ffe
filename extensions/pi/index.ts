/**
 * tiergate for pi (bundled to dist/pi.js; pi 0.73.1 loads it in Node through its own loader). Gates the `subagent`
 * tool at `tool_call` and records children at `tool_result`. Loading never throws: pi would exit.
 */
import { defaultPiDeps, safeRegister, type PiApi } from '../../src/adapters/pi/extension.js';
import { policySlowPath } from '../../src/config/policy-load.js';
import { usePolicySlowPath } from '../../src/config/runtime.js';

usePolicySlowPath(() => policySlowPath);

export default function tiergate(pi: PiApi): void {
  safeRegister(pi, () => defaultPiDeps());
}

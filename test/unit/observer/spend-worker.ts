// Child process for the parallel-writers tests (test/unit/observer/spend-concurrency.test.ts, test/stress/spend-completions.test.ts): counts `each` completions of 1000 pico-USD,
// keys unique to worker `w`, in the spend summary of TIERGATE_HOME.
import { policySlowPath } from '../../../src/config/policy-load.js';
import { usePolicySlowPath } from '../../../src/config/runtime.js';
import { noteSpend } from '../../../src/observer/spend-record.js';

usePolicySlowPath(() => policySlowPath);

const [w, each] = process.argv.slice(2).map(Number) as [number, number];
const pricer = { catalogVersion: 't', price: () => ({ picoUsd: 1000n, catalogVersion: 't', modelId: 'm' }) };
const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 };
for (let i = 0; i < each; i++) {
  noteSpend(
    {
      kind: 'completion',
      harness: 'claude',
      sessionId: 'sess-1',
      callId: null,
      agentId: `w${w}-${i}`,
      subagentType: null,
      servedModel: 'm',
      usage,
      status: 'ok',
      outcome: { result: null, verified: null, escalationFrom: null },
      startedAt: null,
      endedAt: Date.now(),
      usageSource: 'test',
      dedupeKey: null,
    },
    process.env,
    { pricer },
  );
}

// Child process for the parallel-writers tests (test/unit/observer/spend-concurrency.test.ts, test/stress/spend-completions.test.ts): counts `each` completions of 1000 pico-USD,
// keys unique to worker `w`, in the spend summary of TIERGATE_HOME. With a third argument `dispatch`: `each` dispatches
// under a budget instead (each reserving through the held lines, spend-held.ts), every second one's child completing by
// its call id; prints what it reserved and completed as JSON.
import { policySlowPath } from '../../../src/config/policy-load.js';
import { usePolicySlowPath } from '../../../src/config/runtime.js';
import type { Decision } from '../../../src/contracts/decision.js';
import type { DispatchObservation } from '../../../src/contracts/observation.js';
import { noteSpend } from '../../../src/observer/spend-record.js';
import { decideReserving } from '../../../src/observer/spend-reserve.js';

usePolicySlowPath(() => policySlowPath);

const [w, each] = process.argv.slice(2, 4).map(Number) as [number, number];
const dispatching = process.argv[4] === 'dispatch';
const pricer = { catalogVersion: 't', price: () => ({ picoUsd: 1000n, catalogVersion: 't', modelId: 'm' }) };
const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 };
const ALLOW = { action: 'allow', reason: 'within-ceiling', diagnostics: [] } as unknown as Decision;
const budgets = { day: '1000', reserve: '0.000001', action: 'deny' as const, warnAt: 0.8 };
const reserved: string[] = [];
const completed: string[] = [];
for (let i = 0; i < each; i++) {
  const callId = dispatching ? `toolu_w${w}_${i}` : null;
  if (callId) {
    const obs = { harness: 'claude', sessionId: 'sess-1', callId, subagentType: null, at: Date.now() };
    const d = decideReserving(
      process.env,
      obs as DispatchObservation,
      budgets,
      () => ALLOW,
      () => 'm',
    );
    // Not reserved (the lock not had in time): its completion would settle another's reservation, so none is sent.
    if (d.diagnostics.some((x) => x.includes('not reserved'))) continue;
    reserved.push(callId);
    if (i % 2 === 0) continue;
    completed.push(callId);
  }
  noteSpend(
    {
      kind: 'completion',
      harness: 'claude',
      sessionId: 'sess-1',
      callId,
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
if (dispatching) process.stdout.write(JSON.stringify({ reserved, completed }));

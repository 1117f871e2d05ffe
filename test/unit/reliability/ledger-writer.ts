// Child process for kill9.test.ts: opens the real ledger and records completions in transactions of BATCH rows as
// fast as it can, printing "writing" once the first batch is in. It is killed with SIGKILL mid-write.
import { openLedger } from '../../../src/observer/ledger/open.js';
import { recordCompletion } from '../../../src/observer/ledger/store.js';

const BATCH = 50;
const lane = process.argv[2] ?? '0';
const db = openLedger(process.env, { busyTimeoutMs: 10_000 });
const usage = {
  input: 1200,
  output: 340,
  cacheRead: 5000,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  requests: 1,
};
// Bounded even if the SIGKILL never comes (a parent that died first): stop after MAX_BATCHES or once orphaned.
const MAX_BATCHES = 4000;
const parent = process.ppid;
for (let b = 0; b < MAX_BATCHES && process.ppid === parent; b++) {
  db.transaction(() => {
    for (let i = 0; i < BATCH; i++) {
      recordCompletion(db, {
        harness: 'codex',
        sessionId: `kill-${lane}`,
        callId: null,
        agentId: `k${lane}-b${b}-i${i}`,
        subagentType: 'default',
        project: null,
        requestedModel: null,
        servedModel: 'gpt-6-luna',
        usage,
        status: 'ok',
        outcome: { result: 'done', verified: 'yes', escalationFrom: null },
        startedAt: Date.now() - 1000,
        endedAt: Date.now(),
        usageSource: 'transcript-tail',
        transcriptPath: null,
        incomplete: false,
        fallbackKey: `k${lane}-b${b}-i${i}`,
      });
    }
  });
  if (b === 0) process.stdout.write('writing\n');
}

// Runs inside Bun (OpenCode's plugin runtime): opens the ledger through the runtime's driver choice, drains the spool,
// records one completion of its own, and prints what it sees.
import { drainSpool } from '../../../src/collect/drain.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { recordCompletion } from '../../../src/observer/ledger/store.js';

const db = openLedger(process.env);
const stats = drainSpool(db, process.env);
db.transaction(() =>
  recordCompletion(db, {
    harness: 'opencode',
    sessionId: 'ses_bun',
    callId: 'call_bun',
    agentId: 'ses_child_bun',
    subagentType: 'pricey',
    project: '/w',
    requestedModel: 'fake/big',
    servedModel: 'big',
    usage: { input: 1500, output: 200, cacheRead: 500, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: 0, requests: 1 },
    status: 'ok',
    outcome: { result: 'done', verified: 'yes', escalationFrom: null },
    startedAt: 1,
    endedAt: 2,
    usageSource: 'sdk',
    transcriptPath: null,
    incomplete: false,
    fallbackKey: 'x',
    cost: { picoUsd: 38_250_000_000n, catalogVersion: 'opencode-config', modelId: 'big' },
  }),
);
const rows = db
  .prepare('SELECT harness, call_id, CAST(cost_pico AS TEXT) AS cost FROM completions ORDER BY harness')
  .all();
const version = db.prepare('SELECT MAX(version) AS v FROM schema_version').get();
console.log(JSON.stringify({ driver: db.kind, stats, rows, version }));
db.close();

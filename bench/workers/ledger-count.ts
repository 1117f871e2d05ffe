/** Final drain of whatever the writers left in the spool, then the ledger's completion rows as JSON (ledger-concurrency). */
import { policySlowPath } from '../../src/config/policy-load.js';
import { usePolicySlowPath } from '../../src/config/runtime.js';
import { loadPricer } from '../../src/observer/default-pricer.js';
import { runObserver } from '../../src/collect/drain.js';
import { openLedger } from '../../src/observer/ledger/open.js';

usePolicySlowPath(() => policySlowPath);

const db = openLedger(process.env, { busyTimeoutMs: 30_000 });
const stats = runObserver(process.env, loadPricer(process.env), db);
const rows = db
  .prepare(`SELECT dedupe_key AS k, status, served_model AS m FROM completions WHERE harness = 'codex'`)
  .all<{ k: string; status: string; m: string | null }>();
const check = db.prepare('PRAGMA integrity_check').get<Record<string, string>>();
db.close();
process.stdout.write(
  `${JSON.stringify({ finalDrain: stats, keys: rows.map((r) => r.k), ok: rows.filter((r) => r.status === 'ok').length, integrity: Object.values(check ?? {})[0] })}\n`,
);

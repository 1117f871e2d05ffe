// Child process for the two-drainers race in drain.test.ts: drains the spool of TIERGATE_HOME, prints rows inserted.
import { drainSpool } from '../../../src/collect/drain.js';
import { policySlowPath } from '../../../src/config/policy-load.js';
import { usePolicySlowPath } from '../../../src/config/runtime.js';
import { openLedger } from '../../../src/observer/ledger/open.js';

usePolicySlowPath(() => policySlowPath);
const db = openLedger(process.env, { busyTimeoutMs: 10_000 });
const s = drainSpool(db, process.env);
db.close();
process.stdout.write(`${s.dispatches}\n`);

/**
 * One "hook process" of bench/ledger-concurrency.mjs: records N Codex completions through the real command path
 * (runHook -> codex SubagentStop handler -> child rollout tail -> appendSpool), and every `drainEvery` completions
 * drains the spool into the ledger the way a SessionEnd hook or a CLI run does, so writers and drainers race.
 * argv: <lane> <count> <drainEvery> <rolloutPath> <turnId>; prints one JSON line {lane, recorded, drains, drainErrors, ms}.
 */
import { policySlowPath } from '../../src/config/policy-load.js';
import { usePolicySlowPath } from '../../src/config/runtime.js';
import { Readable } from 'node:stream';
import { runHook } from '../../src/wiring/command-hooks.js';
import { loadPricer } from '../../src/observer/default-pricer.js';
import { runObserver } from '../../src/collect/drain.js';
import { openLedger } from '../../src/observer/ledger/open.js';

usePolicySlowPath(() => policySlowPath);

const [lane = '0', count = '50', drainEvery = '10', rollout = '', turnId = ''] = process.argv.slice(2);
const env = process.env;
const started = performance.now();
let recorded = 0;
let drains = 0;
let drainErrors = 0;
for (let i = 0; i < Number(count); i++) {
  const payload = {
    session_id: `bench-session-${lane}`,
    turn_id: turnId,
    cwd: env.HOME,
    hook_event_name: 'SubagentStop',
    model: 'gpt-6-luna',
    agent_id: `bench-agent-${lane}-${i}`,
    agent_type: 'default',
    agent_transcript_path: rollout,
    last_assistant_message: 'Result: done\nVerified: yes',
    stop_hook_active: false,
    permission_mode: 'default',
  };
  const r = await runHook('codex', 'SubagentStop', Readable.from([Buffer.from(JSON.stringify(payload))]), env);
  if (r.failed === null) recorded++;
  if ((i + 1) % Number(drainEvery) === 0) {
    let db;
    try {
      db = openLedger(env, { busyTimeoutMs: 30_000 });
      if (runObserver(env, loadPricer(env), db) === null) drainErrors++;
      drains++;
    } catch {
      drainErrors++;
    } finally {
      db?.close();
    }
  }
}
process.stdout.write(
  `${JSON.stringify({ lane: Number(lane), recorded, drains, drainErrors, ms: Math.round(performance.now() - started) })}\n`,
);

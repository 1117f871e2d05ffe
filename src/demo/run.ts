/**
 * The whole demo: a sandbox, every harness's recorded payloads replayed through the real hook code, the observer pass
 * that drains the spool into the sandbox's SQLite ledger, and the report `tiergate report` would print from it.
 */
import { harnessList } from '../adapters/index.js';
import type { Report } from '../contracts/report.js';
import type { Env } from '../io/paths.js';
import { paths } from '../io/paths.js';
import { loadPricer } from '../observer/default-pricer.js';
import { runObserver } from '../collect/drain.js';
import { openLedger } from '../observer/ledger/open.js';
import { buildReport } from '../report/query.js';
import { Replay, type DemoDecision } from './replay.js';
import { createSandbox } from './sandbox.js';

export type DemoResult = { decisions: DemoDecision[]; report: Report; ledger: string; home: string; ms: number };

/** timeZone: the zone the report's period is shown in (the CLI passes the user's own); absent: UTC. */
export async function runDemo(opts: { keep: boolean; env?: Env; timeZone?: string }): Promise<DemoResult> {
  const t0 = Date.now();
  const sb = createSandbox(opts.env);
  const restore = overlayProcessEnv(sb.env);
  try {
    const replay = new Replay(sb);
    for (const m of harnessList()) await replay.harness(m);
    const db = openLedger(sb.env);
    let report: Report;
    try {
      const pricer = loadPricer(sb.env, sb.project);
      runObserver(sb.env, pricer, db);
      report = buildReport(db, { by: 'harness', timeZone: opts.timeZone ?? null }, new Date(), pricer);
    } finally {
      db.close();
    }
    return { decisions: replay.decisions, report, ledger: paths(sb.env).ledger, home: sb.root, ms: Date.now() - t0 };
  } finally {
    restore();
    if (!opts.keep) sb.remove();
  }
}

/**
 * Everything the demo calls is handed the sandbox env, but a diagnostic or cache written with the process's own env
 * (a default argument somewhere) would land in the user's real data dir: point the process at the sandbox too, for
 * the duration of the replay only.
 */
function overlayProcessEnv(env: Env): () => void {
  const saved = new Map<string, string | undefined>();
  for (const [k, v] of Object.entries(env)) {
    saved.set(k, process.env[k]);
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  return () => {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

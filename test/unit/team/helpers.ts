/** Homes (data dirs) with seeded ledgers, team roles in a throwaway cluster, and the CLI commands run in-process. */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Report, ReportRow } from '../../../src/contracts/report.js';
import { loadPricer } from '../../../src/observer/default-pricer.js';
import type { SqlDriver } from '../../../src/observer/ledger/driver.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { buildReport, type ReportQuery } from '../../../src/report/query.js';
import { run as pushRun } from '../../../src/cli/commands/push.js';
import { run as teamRun } from '../../../src/cli/commands/team.js';
import { connectTeam } from '../../../src/team/pg.js';
import { buildTeamReport, type TeamReportQuery } from '../../../src/team/report.js';
import { runCaptured, type CommandResult } from '../../support/cli.js';
import type { PgCluster } from '../../support/pg-cluster.js';
import { seedLedger } from '../report/seed.js';

export type Home = { dir: string; env: Record<string, string>; ledger: string };

/** A data dir and config dir of their own; `user` goes in the user policy file's team section. */
const made: string[] = [];

/** Removes every home this file made (afterAll). */
export function removeHomes(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function home(opts: { user?: string; url?: string; team?: unknown } = {}): Home {
  const dir = mkdtempSync(join(tmpdir(), 'tg-team-'));
  made.push(dir);
  const env: Record<string, string> = {
    TIERGATE_HOME: join(dir, 'tg'),
    HOME: dir,
    TIERGATE_PRICE_REFRESH: 'off',
    // Never the caller's ~/.pgpass: a password comes from the URL, or a test's own PGPASSWORD or PGPASSFILE.
    PGPASSFILE: join(dir, 'no-pgpass'),
    TIERGATE_TEAM_URL: opts.url ?? '',
  };
  const team = opts.team ?? (opts.user === undefined ? undefined : { user: opts.user });
  if (team !== undefined) {
    mkdirSync(join(dir, 'tg', 'config'), { recursive: true });
    writeFileSync(join(dir, 'tg', 'config', 'config.json'), JSON.stringify({ team }));
  }
  return { dir, env, ledger: join(dir, 'tg', 'data', 'ledger.sqlite') };
}

export function withLedger<T>(h: Home, fn: (db: SqlDriver) => T): T {
  const db = openLedger(h.env);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

export function seed(h: Home, runs?: Parameters<typeof seedLedger>[2]): void {
  withLedger(h, (db) => seedLedger(db, loadPricer(h.env), runs));
}

export const push = (h: Home, args: string[] = [], url?: string): Promise<CommandResult> =>
  runCaptured(pushRun, args, { ...h.env, ...(url === undefined ? {} : { TIERGATE_TEAM_URL: url }) });

export const teamInit = (h: Home, url: string, args: string[] = []): Promise<CommandResult> =>
  runCaptured(teamRun, ['init', ...args], { ...h.env, TIERGATE_TEAM_URL: url });

/** The local report as `tiergate report` builds it (with the pricer, so corrections' savings are priced). */
export function localReport(h: Home, q: ReportQuery): Report {
  return withLedger(h, (db) => buildReport(db, q, new Date(), loadPricer(h.env)));
}

export async function teamReport(url: string, q: TeamReportQuery): Promise<Report> {
  const db = await connectTeam(url);
  try {
    return await buildTeamReport(db, q);
  } finally {
    await db.end();
  }
}

/** A row's numbers (no model pairs: their top five may differ once rows of two people merge). */
export function scalars(r: ReportRow) {
  return {
    runs: r.runs,
    dispatches: r.dispatches,
    denied: r.denied,
    completed: r.completed,
    pending: r.pending,
    verified: r.verified,
    tokens: r.tokens,
    cost: r.cost.pico,
    unpriced: r.unpricedRuns,
    noUsage: r.noUsageRuns,
    cf: r.counterfactual.pico,
    savings: r.savings.pico,
    comparable: r.comparableRuns,
    notHonoured: r.correctionsNotHonoured,
    usageNotReported: r.usageNotReported,
    corrected: r.corrected,
    saved: r.saved.pico,
    savedRuns: r.savedRuns,
  };
}

type S = ReturnType<typeof scalars>;
const addPico = (a: string | null, b: string | null) =>
  a === null ? b : b === null ? a : (BigInt(a) + BigInt(b)).toString();

/** The numbers of several reports' rows taken together, as one ledger holding all their rows would report them. */
export function sumScalars(rows: ReportRow[]): S {
  const out = rows.map(scalars).reduce((a, b) => ({
    runs: a.runs + b.runs,
    dispatches: a.dispatches + b.dispatches,
    denied: a.denied + b.denied,
    completed: a.completed + b.completed,
    pending: a.pending + b.pending,
    verified: a.verified + b.verified,
    tokens: {
      input: a.tokens.input + b.tokens.input,
      output: a.tokens.output + b.tokens.output,
      cacheRead: a.tokens.cacheRead + b.tokens.cacheRead,
      cacheWrite: a.tokens.cacheWrite + b.tokens.cacheWrite,
      total: a.tokens.total + b.tokens.total,
    },
    cost: addPico(a.cost, b.cost),
    unpriced: a.unpriced + b.unpriced,
    noUsage: a.noUsage + b.noUsage,
    cf: addPico(a.cf, b.cf),
    savings: addPico(a.savings, b.savings),
    comparable: a.comparable + b.comparable,
    notHonoured: a.notHonoured + b.notHonoured,
    usageNotReported: a.usageNotReported && b.usageNotReported,
    corrected: a.corrected + b.corrected,
    saved: addPico(a.saved, b.saved),
    savedRuns: a.savedRuns + b.savedRuns,
  }));
  return out;
}

/** Group -> numbers of a report, and the same merged over several local reports. */
export function byGroup(r: Report): Record<string, S> {
  return Object.fromEntries(r.rows.map((row) => [String(row.group), scalars(row)]));
}
export function mergedByGroup(reports: Report[]): Record<string, S> {
  const rows = new Map<string, ReportRow[]>();
  for (const r of reports)
    for (const row of r.rows) rows.set(String(row.group), [...(rows.get(String(row.group)) ?? []), row]);
  return Object.fromEntries([...rows].map(([g, rs]) => [g, sumScalars(rs)]));
}

/** Hash of every file of the local ledger (main file, WAL, shared memory) that exists. */
export function ledgerFingerprint(h: Home): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of [h.ledger, `${h.ledger}-wal`, `${h.ledger}-shm`]) {
    if (existsSync(f)) out[f] = createHash('sha256').update(readFileSync(f)).digest('hex');
  }
  return out;
}

/** The team database, a role that pushes and a role that only reads (as docs/team.md grants them). */
export async function teamDatabase(
  c: PgCluster,
  db: string,
): Promise<{ admin: string; pusher: string; reader: string }> {
  await c.sql(`CREATE DATABASE ${db}`);
  await c.sql(
    "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'tg_pusher') THEN CREATE ROLE tg_pusher LOGIN PASSWORD 'push-pw'; END IF; END $$",
  );
  await c.sql(
    "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'tg_reader') THEN CREATE ROLE tg_reader LOGIN PASSWORD 'read-pw'; END IF; END $$",
  );
  return {
    admin: c.url(undefined, undefined, db),
    pusher: c.url('tg_pusher', 'push-pw', db),
    reader: c.url('tg_reader', 'read-pw', db),
  };
}

/** The grants docs/team.md gives: pushers write the tables (rollups through the triggers), readers only SELECT. */
export async function grantRoles(c: PgCluster, db: string): Promise<void> {
  await c.sql(
    `GRANT USAGE ON SCHEMA tiergate TO tg_pusher, tg_reader;
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA tiergate TO tg_pusher;
    GRANT SELECT ON ALL TABLES IN SCHEMA tiergate TO tg_reader;`,
    [],
    db,
  );
}

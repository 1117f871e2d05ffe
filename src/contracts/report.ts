import * as z from 'zod/mini';
import { HarnessSchema } from './harness.js';

/**
 * `tiergate report --json`: the stable row source for every report view (terminal, CSV, the HTML page).
 * Additive changes only within `tiergate-report/1`. Money is exact: `pico` is an integer string of pico-USD (1e-12),
 * `usd` the same rounded to 6 decimals; both null when nothing in the row could be priced (never "0").
 * `user` (the person label of a team ledger's rows) groups only `report --team` (src/team/report.ts).
 */
export const ReportBySchema = z.enum(['session', 'agent', 'tier', 'model', 'harness', 'day', 'user']);
export type ReportBy = z.infer<typeof ReportBySchema>;

export const MoneySchema = z.object({
  usd: z.nullable(z.string()),
  pico: z.nullable(z.string().check(z.regex(/^-?\d+$/))),
});
export type Money = z.infer<typeof MoneySchema>;

export const ReportRowSchema = z.object({
  /** Value of the grouping column; null = not known (e.g. a dispatch with no tier). */
  group: z.nullable(z.string()),
  /** Subagent runs in the group: completions, plus dispatches that never completed. */
  runs: z.int().check(z.nonnegative()),
  /** Dispatches tiergate saw (hook or scanned parent transcript). */
  dispatches: z.int().check(z.nonnegative()),
  /** Dispatches tiergate denied. */
  denied: z.int().check(z.nonnegative()),
  /** Completions with status ok. */
  completed: z.int().check(z.nonnegative()),
  /** Completions still waiting for their transcript to flush. */
  pending: z.int().check(z.nonnegative()),
  /** Completions whose `Verified:` token is affirmative (yes, true, pass, passed, tests, ok, verified). */
  verified: z.int().check(z.nonnegative()),
  /**
   * Requested -> served model pairs, most frequent first (every pair). Requested is what the dispatch asked for: with a
   * decision record, the model the child would have run on without tiergate (so a correction reads opus -> sonnet);
   * before it, the model the dispatch was decided onto.
   */
  models: z.array(
    z.object({
      requested: z.nullable(z.string()),
      served: z.nullable(z.string()),
      runs: z.int(),
      /** Of `runs`, those tiergate corrected (the pair is the correction, not a mismatch); absent when none. */
      corrected: z.optional(z.int()),
    }),
  ),
  tokens: z.object({
    input: z.int(),
    output: z.int(),
    cacheRead: z.int(),
    cacheWrite: z.int(),
    total: z.int(),
  }),
  cost: MoneySchema,
  /** Completions with usage but no price for their served model: their cost is NOT in `cost`. */
  unpricedRuns: z.int().check(z.nonnegative()),
  /** Completions without usage (Cursor reports none; pending transcripts). */
  noUsageRuns: z.int().check(z.nonnegative()),
  /** Cost of the same usage on the parent's model, over `comparableRuns` only. */
  counterfactual: MoneySchema,
  /** counterfactual − cost, over the same comparable runs (negative: the children cost more than the parent would). */
  savings: MoneySchema,
  comparableRuns: z.int().check(z.nonnegative()),
  /** True when every run in the row is a Cursor run: Cursor reports no usage, so the row has none to show. */
  usageNotReported: z.boolean(),
  /**
   * Corrections not honoured: dispatches tiergate corrected whose child was served by another model (the ledger's
   * enforcement `ignored`, src/observer/enforcement.ts). Their savings never happened: `savings` is from what ran.
   */
  correctionsNotHonoured: z.int().check(z.nonnegative()),
  /** Dispatches tiergate corrected (an over-ceiling model switched to a cheaper one, or the default tier set), each once. */
  corrected: z.int().check(z.nonnegative()),
  /**
   * What tiergate's corrections saved: their runs' usage priced at the model the dispatch named (else the parent's,
   * which a child naming none inherits), minus what the runs cost on the model that ran, over `savedRuns` (runs priced
   * both ways; the named model at the catalog in effect when the report ran). Null when none could be priced.
   */
  saved: MoneySchema,
  savedRuns: z.int().check(z.nonnegative()),
  /** The part of `saved` from budget downshifts (a spent budget moved the child to a cheaper tier). */
  savedByBudget: z.optional(MoneySchema),
  /**
   * Runs in `savedRuns` priced by the old estimate, "estimated (dispatch not recorded)": corrections drained before
   * the decision record existed (the model the dispatch named, else the parent's, at the current catalog). The rest are
   * priced at the model the child would have run on without tiergate, at the rates its decision saw.
   */
  savedEstimatedRuns: z.optional(z.int().check(z.nonnegative())),
  /** Of `denied`, those refused by a fan-out limit (limits.concurrentSubagents / subagentsPerSession; kind limit-deny). */
  limitDenied: z.optional(z.int().check(z.nonnegative())),
  /**
   * Running children stopped when a budget ran out (budgets.action "stop"; decision kind `stopped`), each child once.
   * Not in `runs`, `dispatches` or `denied`: the stopped child's own run is counted as a run.
   */
  stopped: z.optional(z.int().check(z.nonnegative())),
  /**
   * Dispatches where tiergate raised the harness's permission prompt (onOverCeiling or budgets.action "ask"; decision
   * kind `ask`), each dispatch once. In `dispatches`; not in `denied`. tiergate never sees the answer itself.
   */
  asked: z.optional(z.int().check(z.nonnegative())),
  /** Of `asked`, those whose child then ran (the person approved): the ask's decision record joined to a completion. */
  askedRan: z.optional(z.int().check(z.nonnegative())),
  /** Of `denied`, those retried on a cheaper model (a later dispatch in the session ran). No spend avoided is claimed. */
  deniedRetried: z.optional(z.int().check(z.nonnegative())),
  /** What the corrections set (the agent or model the child ran as instead of the one asked for), each dispatch once. */
  correctedTo: z.optional(z.array(z.object({ value: z.string(), runs: z.int() }))),
  /**
   * Runs billed by request (a harness whose descriptor has requestBilling): how many, and the lowest and highest
   * multiplier reported for them (ledger migration 9). Absent when the row has none (runs billed by token).
   */
  multiplier: z.optional(z.object({ runs: z.int().check(z.positive()), min: z.number(), max: z.number() })),
  /** `--by session` only: the session's project directory and its last recorded activity (ISO), when known. */
  project: z.optional(z.nullable(z.string())),
  lastActivity: z.optional(z.nullable(z.string())),
});
export type ReportRow = z.infer<typeof ReportRowSchema>;

export const ReportFiltersSchema = z.object({
  /** First instant counted (ISO, UTC). */
  since: z.nullable(z.string()),
  /** First instant NOT counted (ISO, UTC): `--until 2026-03-31` is inclusive, so this is the next day's midnight. */
  until: z.nullable(z.string()),
  harness: z.nullable(HarnessSchema),
  session: z.nullable(z.string()),
  project: z.nullable(z.string()),
  /** IANA zone of the period's days and of `--by day` (the local one unless --timezone); absent in older reports: UTC. */
  timeZone: z.optional(z.string()),
  /** Team report only (`--user`, `--origin`): the person label and the machine's origin id the rows were pushed with. */
  user: z.optional(z.nullable(z.string())),
  origin: z.optional(z.nullable(z.string())),
});
export type ReportFilters = z.infer<typeof ReportFiltersSchema>;

export const ReportSchema = z.object({
  format: z.literal('tiergate-report/1'),
  generatedAt: z.string(),
  by: ReportBySchema,
  /** Where the rows come from: this machine's ledger, or the team's ledger in PostgreSQL (`--team`). Absent: local. */
  source: z.optional(z.enum(['local', 'team'])),
  filters: ReportFiltersSchema,
  rows: z.array(ReportRowSchema),
  totals: ReportRowSchema,
  /**
   * Everything the sessions in scope spent where tiergate knows it: the requests `tiergate scan` read from the harnesses'
   * transcripts (parents and subagents), with the report's filters. Absent when no scanned request is in scope.
   */
  wholeUsage: z.optional(
    z.object({
      requests: z.int().check(z.nonnegative()),
      subagentRequests: z.int().check(z.nonnegative()),
      sessions: z.int().check(z.nonnegative()),
      unpricedRequests: z.int().check(z.nonnegative()),
      cost: MoneySchema,
      subagentCost: MoneySchema,
    }),
  ),
  /** Present when `--limit` applied: groups left out of `rows` (still counted in `totals`). */
  omittedRows: z.optional(z.int().check(z.nonnegative())),
});
export type Report = z.infer<typeof ReportSchema>;

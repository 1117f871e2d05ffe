import * as z from 'zod/mini';
import { ResolutionSchema } from './prices.js';

/** Why the engine decided what it did. Defined once; the README, explain, doctor and reports import these. */
export const ReasonCodeSchema = z.enum([
  'within-ceiling', // child priced at or below parent
  'over-ceiling-corrected', // child pricier than parent, rewritten to a legal choice within the ceiling
  'over-ceiling-denied', // child pricier than parent, no legal rewrite: denied with a retry
  'default-tier-applied', // dispatch named no model: the default tier, capped by the ceiling, was set
  'inherits-parent', // dispatch named no model and the harness runs it on the parent's: nothing to do
  'unknown-price-allowed', // a price was unknown and the policy allows (logged)
  'unknown-price-denied', // a price was unknown and the policy denies (opt-in)
  'not-comparable', // per-request or reasoning fees make the comparison unknown; treated like unknown price
  'guard-off', // mode off: nothing checked
  'warn-only', // mode warn: would have corrected/denied, allowed and logged
  'unknown-tier', // a tier or agent the config does not map
  'internal-error', // tiergate itself failed: fail open (allow, nothing printed) and log it
  'deadline', // recorded only: the hook's deadline passed before its answer was printed, so the harness went ahead unchanged
  'budget-downshifted', // a spend budget is spent, action downshift: the child moved to the cheap tier (or denied with a retry naming it)
  'budget-denied', // a spend budget is spent, action deny (or no cheap tier to move to): denied, naming the budget
  'budget-warning', // within warnAt of a budget (or unpriced children make the spend unknown): allowed, recorded
  'limit-denied', // a fan-out limit (limits.concurrentSubagents / subagentsPerSession) is reached: denied, naming it
  'child-stopped', // recorded only: a running child was told to stop because a budget ran out (budgets.action stop)
  'over-ceiling-asked', // child pricier than parent, onOverCeiling ask: the person at the harness's prompt decides
  'budget-asked', // a spend budget is spent, budgets.action ask: the person at the harness's prompt decides
]);
export type ReasonCode = z.infer<typeof ReasonCodeSchema>;

/** One rate compared, at one context size. */
export const PricePointSchema = z.object({
  kind: z.enum(['input', 'output', 'cacheRead', 'cacheWrite5m', 'cacheWrite1h']),
  /** Prompt size (tokens) at which this point was taken: 0 for base rates, else a tier threshold. */
  atPromptTokens: z.int().check(z.nonnegative()),
  parent: z.nullable(z.string()),
  child: z.nullable(z.string()),
  /** child vs parent at this point. */
  order: z.enum(['cheaper', 'equal', 'pricier', 'unknown']),
});
export type PricePoint = z.infer<typeof PricePointSchema>;

export const ComparisonSchema = z.object({
  parent: ResolutionSchema,
  child: ResolutionSchema,
  /** pricier if ANY point is pricier; cheaper if all ≤ and one <; equal if all equal; unknown if a side is unpriced. */
  verdict: z.enum(['cheaper', 'equal', 'pricier', 'unknown']),
  points: z.array(PricePointSchema),
  catalogDate: z.string(),
});
export type Comparison = z.infer<typeof ComparisonSchema>;

/** One budget against the spend it caps (routing-engine/budget.ts). Amounts are USD decimal strings. */
export const BudgetLineSchema = z.object({
  kind: z.enum(['session', 'day', 'month', 'sessionTotal']),
  limit: z.string(),
  /** Priced spend so far; with `unknown` > 0 it is a lower bound. */
  spent: z.string(),
  /** Children recorded without a price (or without usage yet): never counted as $0. */
  unknown: z.int(),
  /** not-reported: the harness gives no figure for it (sessionTotal outside Claude's module, OpenCode and pi). */
  status: z.enum(['ok', 'warning', 'over', 'not-reported']),
});
export type BudgetLine = z.infer<typeof BudgetLineSchema>;

/** The budgets' state at a dispatch, on every decision taken with a budget set. */
export const BudgetNoteSchema = z.object({
  /** unknown: the spend summary could not be read (budgets not enforced for this dispatch; diagnosed). */
  status: z.enum(['ok', 'warning', 'over', 'unknown']),
  lines: z.array(BudgetLineSchema),
  summary: z.string(),
});
export type BudgetNote = z.infer<typeof BudgetNoteSchema>;

/** What the person at the prompt is shown: the money (estimates stated as such), the tier tiergate would pick. */
export const AskSchema = z.object({
  reason: z.enum(['over-ceiling-asked', 'budget-asked']),
  message: z.string(),
  /**
   * What a model is to do where the harness answers the prompt itself without asking (Copilot CLI 1.0.102 in `-p`
   * denies it, showing the reason): the denial's text, or a retry naming the correction's value.
   */
  otherwise: z.string(),
});
export type Ask = z.infer<typeof AskSchema>;

const common = {
  reason: ReasonCodeSchema,
  /** One human sentence. */
  summary: z.string(),
  comparison: z.nullable(ComparisonSchema),
  /** The tier the child ends up on, when known. */
  tier: z.nullable(z.string()),
  /** Problems worth a diagnostic-log line (invalid config section, unknown price, …). Never shown to the model. */
  diagnostics: z.array(z.string()),
  /** Present when the policy sets a budget: what the budgets stood at for this dispatch. */
  budget: z.optional(BudgetNoteSchema),
  /**
   * Present when the policy asks (onOverCeiling / budgets.action `ask`) and someone can answer the harness's prompt
   * (DispatchObservation.canAsk): an adapter with a prompt path raises it with `message` and records `reason`; the rest of
   * the decision is what happens where no one is asked (routing-engine/ask.ts).
   */
  ask: z.optional(AskSchema),
};

export const DecisionSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('allow'), ...common }),
  z.object({
    action: z.literal('correct'),
    ...common,
    /** The field set and its new value. */
    field: z.string(),
    value: z.string(),
    /** The WHOLE original tool input with the field replaced. */
    updatedInput: z.record(z.string(), z.unknown()),
  }),
  z.object({
    action: z.literal('deny'),
    ...common,
    /** Text the model sees: why, and the exact retry (names a legal cheaper choice). */
    message: z.string(),
  }),
]);
export type Decision = z.infer<typeof DecisionSchema>;

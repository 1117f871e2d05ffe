import * as z from 'zod/mini';
import { DecimalSchema } from './prices.js';

/**
 * What a dispatch decision adds to its spool line (issue 29): what would have run without tiergate and where that was
 * read, what the decision made of it, and the rates it saw. Small on purpose (the dispatch hook writes it); the
 * observation beside it already carries the session, the call id, the agent and model asked for and the parent model.
 */
/**
 * `limit-deny`: refused by a fan-out limit (limits.*). `stopped`: a running child told to stop when a budget ran out
 * (issue 33 item 1 writes it). Both are refusals: never joined to a completion as the dispatch that started a child.
 * `ask`: the harness's permission prompt was raised (issue 33 item 3); the person's answer is not seen by tiergate, so an
 * approved child joins its completion like any dispatch.
 */
export const DecisionKindSchema = z.enum([
  'allow',
  'correct',
  'deny',
  'budget-downshift',
  'budget-deny',
  'warn',
  'limit-deny',
  'stopped',
  'ask',
]);
export type DecisionKind = z.infer<typeof DecisionKindSchema>;

/** The link of the harness's resolution chain that gave the model the child runs on without tiergate. */
export const WithoutFromSchema = z.enum([
  'call', // the call's own model field
  'tier', // a tier the call named (tier agent, `tier:` prefix), mapped by the policy
  'agent-file', // the named agent's definition file
  'environment', // an environment variable (Claude Code's CLAUDE_CODE_SUBAGENT_MODEL)
  'harness-config', // the harness's own config (an agent entry or default in its settings)
  'parent', // inherited from the parent
  'unknown', // an agent whose model the harness config does not tell
]);
export type WithoutFrom = z.infer<typeof WithoutFromSchema>;

/** Base rates, USD per 1M tokens, in the cost function's order: input, output, cache read, cache write 5m and 1h. */
export const RateListSchema = z.array(DecimalSchema);
export type RateList = z.infer<typeof RateListSchema>;

export const DecisionDetailSchema = z.object({
  kind: DecisionKindSchema,
  /** The model the child would have run on without tiergate (null when the harness config does not tell). */
  without: z.nullable(z.string()),
  withoutFrom: WithoutFromSchema,
  /** Where that link was read (the agent file's path, the variable, the parent model's source); null when the call. */
  withoutSource: z.nullable(z.string()),
  /** The value a correction set (a model alias or an agent), and the model that runs under it. */
  to: z.nullable(z.string()),
  toModel: z.nullable(z.string()),
  /** Rates at decision time of the model without tiergate and of the one chosen; null when unpriced. */
  withoutRates: z.nullable(RateListSchema),
  chosenRates: z.nullable(RateListSchema),
  /** The budgets' status the decision saw (ok, warning, over, unknown); null when no budget is set. */
  budget: z.nullable(z.string()),
});
export type DecisionDetail = z.infer<typeof DecisionDetailSchema>;

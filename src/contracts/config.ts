import * as z from 'zod/mini';
import { HARNESS_IDS, TIERS, type Harness } from './harness-ids.js';
import { DecimalSchema, RatesSchema } from './prices.js';

/** Tier -> concrete value for one harness (a model id/alias, or an agent name where the harness routes by agent). */
export const TierMapSchema = z.object({
  cheap: z.optional(z.string()),
  standard: z.optional(z.string()),
  premium: z.optional(z.string()),
  parent: z.optional(z.string()),
});

/**
 * The policy file (user: $XDG_CONFIG_HOME/tiergate/config.json; project: .tiergate.json). Every section is optional
 * and validated on its own: an invalid section falls back to its default and the decision carries a diagnostic. A
 * project file may only tighten the user's policy unless its root is in trustedProjects (config/project-layer.ts).
 */
export const PolicySchema = z.object({
  /** on: enforce; warn: decide and log but always allow; off: do nothing. */
  mode: z.enum(['on', 'warn', 'off']),
  /** What an unknown price does. Default allow (logged); deny is opt-in. */
  unknownPrice: z.enum(['allow', 'deny']),
  /** Tier given to a dispatch that names no model, capped by the parent ceiling. */
  defaultTier: z.enum(TIERS),
  /** One tier map per harness (contracts/harness.ts HARNESS_IDS). */
  tiers: z.object(
    Object.fromEntries(HARNESS_IDS.map((h) => [h, TierMapSchema])) as Record<Harness, typeof TierMapSchema>,
  ),
  /** Negotiated rates (USD per 1M tokens), keyed by model id; beat every catalog. */
  priceOverrides: z.record(
    z.string(),
    z.extend(z.partial(RatesSchema), { input: DecimalSchema, output: DecimalSchema }),
  ),
  /** Codex honours a rewrite only with permissionDecision "allow"; off by default: deny-with-retry instead. */
  codexRewrite: z.boolean(),
  /**
   * A harness seen running another model than a correction set (observer/enforcement.ts leaves a marker): keep
   * correcting it (and counting), or deny-with-retry from then on, which it cannot ignore.
   */
  onIgnoredRewrite: z.enum(['correct', 'deny']),
  /** Which provider Claude Code runs on: decides what its aliases resolve to (reference/pricing.md §2.4). */
  claudeProvider: z.enum(['anthropic', 'bedrock', 'vertex', 'foundry', 'gateway']),
  refresh: z.object({
    enabled: z.boolean(),
    ttlHours: z.number().check(z.positive()),
    // An http(s) URL by pattern, not z.url(): the refresh fetches https only (http on loopback in tests).
    sources: z.array(
      z.object({
        name: z.string(),
        url: z.string().check(z.regex(/^https?:\/\/\S+$/, 'an http(s) URL')),
        format: z.enum(['openrouter', 'litellm', 'models.dev']),
      }),
    ),
  }),
  observer: z.object({
    /** Hard cap on bytes read from the end of a transcript. */
    tailBytes: z.int().check(z.positive()),
  }),
  /**
   * Spend budgets in USD of subagent spend as tiergate records it (routing-engine/budget.ts, docs/budgets.md): per
   * harness session, per local calendar day and per calendar month across every harness and project. `sessionTotal`
   * caps the whole session's cost where the harness reports it in process (Claude Code's hooks module, OpenCode, pi).
   * Past a budget: `downshift` moves the child to the cheap tier (never to a pricier model), `deny` refuses it. Within
   * `warnAt` (a fraction of a budget) the dispatch proceeds and the decision records a warning. Each amount optional.
   */
  budgets: z.object({
    session: z.optional(DecimalSchema),
    day: z.optional(DecimalSchema),
    month: z.optional(DecimalSchema),
    sessionTotal: z.optional(DecimalSchema),
    action: z.enum(['downshift', 'deny']),
    warnAt: z.number().check(z.positive(), z.lte(1)),
    /**
     * USD a dispatch reserves against the budgets until its child's cost is known, when neither this session's nor this
     * agent type's finished children give an estimate (observer/spend-reserve.ts). Larger is stricter.
     */
    reserve: z.optional(DecimalSchema),
  }),
  /**
   * USER FILE ONLY: project roots (absolute paths of directories holding a .tiergate.json) whose file may loosen this
   * policy. Any other project file may only tighten it (config/project-layer.ts); no project file can set this key.
   */
  trustedProjects: z.array(z.string().check(z.regex(/^(\/|[A-Za-z]:[\\/])/, 'an absolute path'))),
  /**
   * USER FILE ONLY: the team ledger (src/team): `url` is the PostgreSQL database `tiergate push` copies this machine's
   * ledger into (TIERGATE_TEAM_URL overrides; the password belongs in PGPASSWORD or ~/.pgpass, not here), `user` the
   * person label on the pushed rows (default: the OS user name). No control characters: the label is shown as is.
   */
  team: z.object({
    url: z.optional(z.string().check(z.regex(/^postgres(ql)?:\/\/\S*$/, 'a postgres:// URL'))),
    user: z.optional(
      z.string().check(z.regex(/^[^\u0000-\u001f\u007f]{1,128}$/, '1 to 128 characters, no control characters')),
    ),
  }),
});
export type Policy = z.infer<typeof PolicySchema>;

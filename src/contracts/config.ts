import * as z from 'zod/mini';
import { HARNESS_IDS, TIERS, type Harness } from './harness-ids.js';
import type { HarnessOptionValues } from './harness.js';
import { DecimalSchema } from './prices.js';

/**
 * Digits after the point in a number or decimal string as written (`1e-7` -> 7, `"0.50"` -> 1: trailing zeros add
 * nothing); Infinity for what is neither.
 */
function decimalsOf(text: string): number {
  const m = /^-?(\d+)(?:\.(\d*?)0*)?(?:e([+-]?\d+))?$/i.exec(text);
  if (!m) return Number.POSITIVE_INFINITY;
  return Math.max(0, (m[2] ?? '').length - Number(m[3] ?? 0));
}

/**
 * The money type (prices/decimal.ts) is fixed point with 18 decimals: a value with more would throw wherever it is
 * compared, so it is refused here, when the layer loads, like any other invalid value (issue 28: a project's
 * 19-decimal budget made every dispatch decision throw, and the throw allowed the dispatch).
 */
const MONEY_DECIMALS = 18;
/** Past any real budget or rate (USD, or USD per 1M tokens), and small enough that the fixed point stays cheap. */
const MONEY_MAX_WHOLE_DIGITS = 9;
const fitsMoney = (s: string): boolean => {
  const dot = s.indexOf('.');
  const whole = (dot < 0 ? s : s.slice(0, dot)).replace(/^0+(?=\d)/, '');
  return whole.length <= MONEY_MAX_WHOLE_DIGITS && decimalsOf(s) <= MONEY_DECIMALS;
};
/** A USD amount or rate the money type holds exactly: a decimal string, at most 18 decimals, below 1e9. */
const MoneySchema = DecimalSchema.check(
  z.refine(fitsMoney, `a decimal string with at most ${MONEY_DECIMALS} decimals, below 1e${MONEY_MAX_WHOLE_DIGITS}`),
);
const MoneyRatesSchema = z.object({
  input: MoneySchema,
  output: MoneySchema,
  cacheRead: z.optional(z.nullable(MoneySchema)),
  cacheWrite5m: z.optional(z.nullable(MoneySchema)),
  cacheWrite1h: z.optional(z.nullable(MoneySchema)),
});

/**
 * The smallest transcript tail a layer may set. A usage record is one JSONL line, and a line carries the message it
 * belongs to: the largest captured (Claude Code 2.1.x, a parent line with a tool result) is 57 KB, so a 64 KiB tail
 * still holds the last whole line. Lower, every child reads as unpriced, which would lift any budget (issue 28).
 */
export const MIN_TAIL_BYTES = 64 * 1024;
/** Bounded read: a hook never reads more than this from a transcript, whatever the user file says. */
const MAX_TAIL_BYTES = 256 * 1024 * 1024;

/** Tier -> concrete value for one harness (a model id/alias, or an agent name where the harness routes by agent). */
export const TierMapSchema = z.object({
  cheap: z.optional(z.string()),
  standard: z.optional(z.string()),
  premium: z.optional(z.string()),
  parent: z.optional(z.string()),
});

/**
 * The policy file (user: $XDG_CONFIG_HOME/tiergate/config.json; project: .tiergate.json), less the keys harnesses
 * declare (HarnessDescriptor.options, added by config/harness-options.ts). Every section is optional
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
  priceOverrides: z.record(z.string(), MoneyRatesSchema),
  /**
   * A harness seen running another model than a correction set (observer/enforcement.ts leaves a marker): keep
   * correcting it (and counting), or deny-with-retry from then on, which it cannot ignore.
   */
  onIgnoredRewrite: z.enum(['correct', 'deny']),
  /**
   * A child priced above its parent: `correct` it to a tier within the ceiling where the harness takes a rewrite, else
   * deny with a retry naming it; or `ask` the person at the harness's permission prompt (the estimated cost on the
   * requested model against the parent's, and the tier tiergate would pick), where the harness has one and someone is
   * there (DispatchObservation.canAsk); elsewhere `ask` acts as `correct` (routing-engine/ask.ts, issue 33 item 3).
   */
  onOverCeiling: z.enum(['correct', 'ask']),
  refresh: z.object({
    enabled: z.boolean(),
    // At most a year: a larger TTL only overflows the date arithmetic.
    ttlHours: z.number().check(z.positive(), z.lte(24 * 366)),
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
    tailBytes: z.int().check(z.gte(MIN_TAIL_BYTES), z.lte(MAX_TAIL_BYTES)),
  }),
  /**
   * Spend budgets in USD of subagent spend as tiergate records it (routing-engine/budget.ts, docs/budgets.md): per
   * harness session, per local calendar day and per calendar month across every harness and project. `sessionTotal`
   * caps the whole session's cost where the harness reports it in process (Claude Code's hooks module, OpenCode, pi).
   * Past a budget: `downshift` moves the child to the cheap tier (never to a pricier model), `deny` refuses it, `stop`
   * refuses it and denies running children's next tool call (runtime/child-stop.ts, issue 33), `ask` asks the person at the
   * harness's permission prompt where there is one and someone to answer, and denies otherwise. Within
   * `warnAt` (a fraction of a budget) the dispatch proceeds and the decision records a warning. Each amount optional.
   */
  budgets: z.object({
    session: z.optional(MoneySchema),
    day: z.optional(MoneySchema),
    month: z.optional(MoneySchema),
    sessionTotal: z.optional(MoneySchema),
    action: z.enum(['ask', 'downshift', 'deny', 'stop']),
    // Multiplied into a budget in the same fixed point: 1e-300 is positive but no fraction the money type holds.
    warnAt: z.number().check(
      z.positive(),
      z.lte(1),
      z.refine((n) => decimalsOf(String(n)) <= MONEY_DECIMALS, `a fraction with at most ${MONEY_DECIMALS} decimals`),
    ),
    /**
     * USD a dispatch reserves against the budgets until its child's cost is known, when neither this session's nor this
     * agent type's finished children give an estimate (observer/spend-reserve.ts). Larger is stricter.
     */
    reserve: z.optional(MoneySchema),
  }),
  /**
   * Fan-out limits per harness session (routing-engine/limits.ts, docs/budgets.md): at most `concurrentSubagents`
   * children running at once and `subagentsPerSession` started in all. Counted only where the harness tells tiergate
   * when a child ends (descriptors' `childEndEvent`); elsewhere not counted (docs/budgets.md and `tiergate doctor` say
   * where). Each optional.
   */
  limits: z.object({
    concurrentSubagents: z.optional(z.int().check(z.positive(), z.lte(10_000))),
    subagentsPerSession: z.optional(z.int().check(z.positive(), z.lte(1_000_000))),
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
/** The shared sections; the keys each harness owns come from its descriptor's `options` (src/descriptors/<id>.ts). */
export type SharedPolicy = z.infer<typeof PolicySchema>;
export type Policy = SharedPolicy & HarnessOptionValues;

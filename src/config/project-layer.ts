/**
 * What a project's `.tiergate.json` may change. A cloned repository is not the user: its file may only TIGHTEN the
 * user's policy. Loosening or repricing needs the user's opt-in: the project's root listed in `trustedProjects` in the
 * user file (no project file can set that key, trusted or not).
 *
 * Every PolicySchema section has exactly one rule in PROJECT_RULES (the type demands one per section, a harness's own
 * key brings its rule from its descriptor, and a test walks the schema): a section added later cannot be merged from a project file until someone says how.
 *
 * Tier maps are judged without prices (the policy loads before the catalogs, and prices depend on the policy): an
 * untrusted project may map a tier only to a value the user's merged map already uses for that tier or a cheaper one,
 * in the order cheap < standard < premium (the names' promise); `parent` may only keep the user's value, since the
 * parent's own model is not a fixed point in that order.
 */
import type { Policy, SharedPolicy } from '../contracts/config.js';
import type { Harness, HarnessOption } from '../contracts/harness.js';
import { HARNESS_OPTIONS } from '../descriptors/index.js';
import { compareDecimal } from '../prices/decimal.js';

/** A top-level key: a shared section (PolicySchema), or a harness's own key (HarnessDescriptor.options). */
export type Section = keyof SharedPolicy | `${Harness}${Capitalize<string>}`;

/** One thing a project file asked for, and whether it took effect. `key` is a section or a dotted path inside one. */
export type ProjectEffect = { key: string; applied: boolean; why: string };

type Judged<S extends Section> = { value: Policy[S]; effects: ProjectEffect[] };

/**
 * `tighten`: the project's value applies where `judge` finds it no looser than the user's.
 * `trusted-only`: it loosens or reprices (in some direction), so it applies only from a trusted project.
 * `user-only`: never from a project file, trusted or not.
 */
export type ProjectRule<S extends Section> =
  | { kind: 'tighten'; judge: (user: Policy[S], project: Policy[S], key: string) => Judged<S> }
  | { kind: 'trusted-only'; why: string }
  | { kind: 'user-only'; why: string };

/** Loosest first: a project value may only move right. */
function ordered<S extends Section>(order: readonly Policy[S][], stricter: string): ProjectRule<S> {
  return {
    kind: 'tighten',
    judge: (user, project, key) => {
      const ok = order.indexOf(project) >= order.indexOf(user);
      const why =
        project === user
          ? "same as the user's"
          : ok
            ? `${show(project)} is ${stricter} than ${show(user)}`
            : `${show(project)} is looser than the user's ${show(user)}`;
      return { value: ok ? project : user, effects: [{ key, applied: ok, why }] };
    },
  };
}

const show = (v: unknown): string => JSON.stringify(v);

type TierMap = Policy['tiers'][Harness];
type TierKey = keyof TierMap;
/** Cheapest first, by the tiers' names; `parent` is not in it (see the header). */
const TIER_ORDER: readonly TierKey[] = ['cheap', 'standard', 'premium'];

/** The values a project may give `tier`: the user's own values for it and for every cheaper tier. */
function allowedTierValues(user: TierMap, tier: string): string[] {
  const at = TIER_ORDER.indexOf(tier as TierKey);
  const from = at === -1 ? (tier === 'parent' ? ['parent' as const] : []) : TIER_ORDER.slice(0, at + 1);
  return from.map((t) => user[t]).filter((v): v is string => v !== undefined);
}

const tiers: ProjectRule<'tiers'> = {
  kind: 'tighten',
  judge: (user, project, key) => {
    const value: Record<string, Record<string, string | undefined>> = {};
    const effects: ProjectEffect[] = [];
    for (const harness of Object.keys(project) as (keyof Policy['tiers'])[]) {
      const mine = user[harness] ?? {};
      const out: Record<string, string | undefined> = { ...mine };
      for (const [tier, v] of Object.entries(project[harness] ?? {})) {
        if (v === undefined || v === (mine as Record<string, string | undefined>)[tier]) continue;
        const path = `${key}.${harness}.${tier}`;
        const ok = allowedTierValues(mine, tier).includes(v);
        if (ok) out[tier] = v;
        const which = tier === 'parent' ? "parent (only the user's own value)" : `${tier} or a cheaper tier`;
        effects.push({
          key: path,
          applied: ok,
          why: `${show(v)} is ${ok ? 'what' : 'not a value'} the user's map uses for ${which}`,
        });
      }
      value[harness] = out;
    }
    if (effects.length === 0) effects.push({ key, applied: true, why: "same as the user's" });
    return { value: value as Policy['tiers'], effects };
  },
};

/** Per field, so a field added to `observer` must be classified here too. */
const OBSERVER_AT_MOST: Record<keyof Policy['observer'], 'at-most'> = { tailBytes: 'at-most' };
const observer: ProjectRule<'observer'> = {
  kind: 'tighten',
  judge: (user, project, key) => {
    const value = { ...user };
    const effects: ProjectEffect[] = [];
    for (const field of Object.keys(OBSERVER_AT_MOST) as (keyof Policy['observer'])[]) {
      if (project[field] === user[field]) continue;
      const ok = project[field] < user[field];
      if (ok) value[field] = project[field];
      effects.push({
        key: `${key}.${field}`,
        applied: ok,
        why: ok
          ? `${project[field]} is below the user's ${user[field]}`
          : `${project[field]} is above the user's ${user[field]}`,
      });
    }
    if (effects.length === 0) effects.push({ key, applied: true, why: "same as the user's" });
    return { value, effects };
  },
};

/**
 * Per field, so a field added to `budgets` must be classified here too. Amounts: a project may lower one or add one the
 * user has not set (a cap where there was none), never raise or drop one; `action` only stricter (ask, downshift, deny, stop); `warnAt` only
 * lower (warn earlier). Compared exactly (decimal strings), never as floats.
 */
type BudgetField = keyof Policy['budgets'];
const BUDGET_RULES: Record<BudgetField, 'amount' | 'action' | 'at-most' | 'at-least-amount'> = {
  session: 'amount',
  day: 'amount',
  month: 'amount',
  sessionTotal: 'amount',
  action: 'action',
  warnAt: 'at-most',
  // What a dispatch holds against the budgets until its cost is known: larger is stricter, so only up (or added).
  reserve: 'at-least-amount',
};
/**
 * `stop` denies what `deny` does and also stops running children: the strictest. `ask` the loosest: the only action
 * under which a child past a budget can still run on the model it asked for (when the person approves).
 */
const ACTION_STRICTNESS: readonly string[] = ['ask', 'downshift', 'deny', 'stop'];
const budgets: ProjectRule<'budgets'> = {
  kind: 'tighten',
  judge: (user, project, key) => {
    const value: Record<string, unknown> = { ...user };
    const effects: ProjectEffect[] = [];
    for (const field of Object.keys(BUDGET_RULES) as BudgetField[]) {
      const mine = user[field];
      const theirs = project[field];
      if (theirs === mine) continue;
      let ok: boolean;
      let why: string;
      switch (BUDGET_RULES[field]) {
        case 'amount':
          if (theirs === undefined) {
            ok = false;
            why = `removing the user's ${show(mine)} would lift the budget`;
          } else {
            ok = mine === undefined || compareDecimal(theirs as string, mine as string) <= 0;
            why =
              mine === undefined
                ? `${show(theirs)} adds a budget the user has not set`
                : `${show(theirs)} is ${ok ? 'at or below' : 'above'} the user's ${show(mine)}`;
          }
          break;
        case 'at-least-amount':
          if (theirs === undefined) {
            ok = false;
            why = `removing the user's ${show(mine)} would lower the reserve`;
          } else {
            ok = mine === undefined || compareDecimal(theirs as string, mine as string) >= 0;
            why =
              mine === undefined
                ? `${show(theirs)} adds a reserve the user has not set`
                : `${show(theirs)} is ${ok ? 'at or above' : 'below'} the user's ${show(mine)}`;
          }
          break;
        case 'action':
          ok = ACTION_STRICTNESS.indexOf(theirs as string) > ACTION_STRICTNESS.indexOf(mine as string);
          why = ok
            ? `${show(theirs)} is stricter than ${show(mine)}`
            : `${show(theirs)} is looser than the user's ${show(mine)}`;
          break;
        default:
          ok = (theirs as number) < (mine as number);
          why = `${theirs} is ${ok ? 'below' : 'above'} the user's ${mine}`;
      }
      if (ok) value[field] = theirs;
      effects.push({ key: `${key}.${field}`, applied: ok, why });
    }
    if (effects.length === 0) effects.push({ key, applied: true, why: "same as the user's" });
    return { value: value as Policy['budgets'], effects };
  },
};

/**
 * Fan-out limits: a project may lower one or add one the user has not set (a cap where there was none), never raise or
 * drop one.
 */
const limits: ProjectRule<'limits'> = {
  kind: 'tighten',
  judge: (user, project, key) => {
    const value: Policy['limits'] = { ...user };
    const effects: ProjectEffect[] = [];
    for (const field of ['concurrentSubagents', 'subagentsPerSession'] as const) {
      const mine = user[field];
      const theirs = project[field];
      if (theirs === mine) continue;
      const ok = theirs !== undefined && (mine === undefined || theirs < mine);
      const why =
        theirs === undefined
          ? `removing the user's ${show(mine)} would lift the limit`
          : mine === undefined
            ? `${theirs} adds a limit the user has not set`
            : `${theirs} is ${ok ? 'below' : 'above'} the user's ${mine}`;
      if (ok) value[field] = theirs;
      effects.push({ key: `${key}.${field}`, applied: ok, why });
    }
    if (effects.length === 0) effects.push({ key, applied: true, why: "same as the user's" });
    return { value, effects };
  },
};

/** The rule a harness declared for a key it owns (HarnessOption.project). */
function harnessRule(o: HarnessOption): ProjectRule<Section> {
  return o.project.kind === 'tighten' ? ordered(o.values as never, o.project.stricter) : o.project;
}

const SHARED_RULES: { readonly [S in keyof SharedPolicy]: ProjectRule<S> } = {
  mode: ordered<'mode'>(['off', 'warn', 'on'], 'stricter'),
  unknownPrice: ordered<'unknownPrice'>(['allow', 'deny'], 'stricter'),
  // `parent` is the loosest: the child keeps the parent's model; every other tier is capped by it.
  defaultTier: ordered<'defaultTier'>(['parent', 'premium', 'standard', 'cheap'], 'cheaper'),
  tiers,
  priceOverrides: { kind: 'trusted-only', why: 'it reprices models (a free model passes every ceiling)' },
  // deny stops correcting a harness seen ignoring rewrites: stricter, so a project may only move toward it.
  onIgnoredRewrite: ordered<'onIgnoredRewrite'>(['correct', 'deny'], 'stricter'),
  // ask lets the person approve a child pricier than its parent, which correct never runs: a project may only move to
  // correct.
  onOverCeiling: ordered<'onOverCeiling'>(['ask', 'correct'], 'stricter'),
  // The refresh reads the user file only (refresh/config.ts): its catalogs are shared by every project, so no
  // project, trusted or not, picks the feeds. Nothing else reads this section.
  refresh: { kind: 'user-only', why: 'the price refresh is shared by every project' },
  observer,
  budgets,
  limits,
  trustedProjects: { kind: 'user-only', why: "trust is the user's to give" },
  // A repository must not send the user's ledger to its own database, nor relabel the user's rows.
  team: { kind: 'user-only', why: "where the ledger is pushed, and as whom, is the user's to say" },
};

/** Every top-level key's rule: the shared sections', then each harness's own keys' (as its descriptor declares). */
export const PROJECT_RULES: Readonly<Record<string, ProjectRule<Section>>> = {
  ...(SHARED_RULES as Record<string, ProjectRule<Section>>),
  ...Object.fromEntries(Object.entries(HARNESS_OPTIONS).map(([key, o]) => [key, harnessRule(o)])),
};

/** Deep equality of two validated policy values (JSON data). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(b, k) && same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** The project's (validated, merged) value for one section against the user's, by the section's rule. */
export function judgeSection<S extends Section>(
  section: S,
  user: Policy[S],
  project: Policy[S],
  trusted: boolean,
): Judged<S> {
  const rule = PROJECT_RULES[section] as unknown as ProjectRule<S>;
  if (same(user, project))
    return { value: user, effects: [{ key: section, applied: true, why: "same as the user's" }] };
  if (rule.kind === 'user-only')
    return {
      value: user,
      effects: [{ key: section, applied: false, why: `only the user file can set it: ${rule.why}` }],
    };
  if (trusted) return { value: project, effects: [{ key: section, applied: true, why: 'trusted project' }] };
  if (rule.kind === 'trusted-only') return { value: user, effects: [{ key: section, applied: false, why: rule.why }] };
  return rule.judge(user, project, section);
}

/**
 * The decision record (issue 29) from what the decision already computed: the model the child would have run on
 * without tiergate and the link of the resolution chain that gave it, what the decision made of it, and the base rates
 * of both models at decision time. Pure (no Node): routeDispatch and Claude Code's hooks module build the same record.
 */
import type { Policy } from '../contracts/config.js';
import type { Decision } from '../contracts/decision.js';
import type { DecisionDetail, DecisionKind, RateList, WithoutFrom } from '../contracts/decision-record.js';
import type { DispatchObservation } from '../contracts/observation.js';
import type { PriceLookup } from '../contracts/prices.js';
import { effectiveRates } from '../prices/cost.js';
import { childOf } from '../routing-engine/decide.js';
import { effectiveModel } from './effective-model.js';

export function decisionKind(d: Pick<Decision, 'action' | 'reason' | 'ask'>): DecisionKind {
  if (d.ask) return 'ask';
  if (d.reason === 'warn-only') return 'warn';
  if (d.reason === 'budget-denied') return 'budget-deny';
  if (d.reason === 'limit-denied') return 'limit-deny';
  if (d.reason === 'child-stopped') return 'stopped';
  if (d.reason === 'budget-downshifted') return d.action === 'deny' ? 'budget-deny' : 'budget-downshift';
  return d.action;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isUpper = (c: number): boolean => c >= 65 && c <= 90;
/** `\w` without `u`: ASCII letters, digits, `_` (NaN, past the end, is none). */
const isWordChar = (c: number): boolean => isUpper(c) || (c >= 97 && c <= 122) || isDigit(c) || c === 95;

/** Whether `word` (lower-case ASCII) is at `at` in `lower` and a word ends there (`\b`). */
const wordAt = (lower: string, at: number, word: string): boolean =>
  lower.startsWith(word, at) && !isWordChar(lower.charCodeAt(at + word.length));

/**
 * `s` with its ASCII letters in lower case, every other character left outside ASCII and every index kept, so what an
 * ASCII pattern with the `i` flag finds in `s` is found by indexOf in it: String#toLowerCase, once U+0130 and U+212A
 * (the two characters it lowers into ASCII, U+0130 into two code units) are replaced by one it leaves as it is;
 * test/unit/observer/decision-record.test.ts checks every other character on the Node it runs on. Searched with indexOf:
 * a scan a character at a time in JavaScript, four of them over a Gemini agent's `<path>: <model>, sent as <id>`, was
 * ~0.5 M instructions of a Node 20 dispatch hook (bench/README.md "Session 17: the Gemini dispatch").
 */
const asciiLowered = (s: string): string =>
  (s.includes('\u0130') || s.includes('\u212a')
    ? s.replaceAll('\u0130', '\uffff').replaceAll('\u212a', '\uffff')
    : s
  ).toLowerCase();

/** Whether `test` holds after some index where `prefix` (lower-case ASCII) starts in `lower`. */
function someAt(lower: string, prefix: string, test: (after: number) => boolean): boolean {
  for (let i = lower.indexOf(prefix); i >= 0; i = lower.indexOf(prefix, i + 1))
    if (test(i + prefix.length)) return true;
  return false;
}

const anyWordAt = (s: string, at: number, words: readonly string[]): boolean => words.some((w) => wordAt(s, at, w));
const FILE_EXTS = ['md', 'toml', 'yaml', 'yml'];
const CONFIG_EXTS = ['json', 'jsonc', 'toml', 'yaml', 'yml'];

/** `/^[A-Z][A-Z0-9_]+\b/`: a variable's name. */
function startsWithVariable(s: string): boolean {
  if (!isUpper(s.charCodeAt(0))) return false;
  let i = 1;
  for (let c = s.charCodeAt(i); isUpper(c) || isDigit(c) || c === 95; c = s.charCodeAt(++i));
  return i >= 2 && !isWordChar(s.charCodeAt(i));
}

/**
 * agentModelFrom is free text per adapter: a path (agent file), a variable name (Claude Code's
 * CLAUDE_CODE_SUBAGENT_MODEL), or a config entry (`opencode.json agent.<name>`, pi's settings default, a built-in
 * agent's cap). Sorted by its shape. Character tests, not regular expressions: each RegExp a Node 20 hook runs the
 * first time is compiled in that process (~0.1 M instructions apiece; bench/README.md session 16). The regular
 * expressions they stand for are in the comments (test/unit/observer/decision-record.test.ts checks they agree).
 */
export function agentLink(from: string | null | undefined): WithoutFrom {
  if (!from) return 'harness-config';
  if (startsWithVariable(from)) return 'environment';
  const lower = asciiLowered(from);
  // A harness's own config file (Hermes' config.yaml, Codex's and Grok's config.toml) is config, not an agent's file:
  // /\.(md|toml|ya?ml)\b/i and not /settings|opencode\.jsonc?|config\.(jsonc?|toml|ya?ml)\b/i.
  if (
    someAt(lower, '.', (at) => anyWordAt(lower, at, FILE_EXTS)) &&
    !lower.includes('settings') &&
    !lower.includes('opencode.json') &&
    !someAt(lower, 'config.', (at) => anyWordAt(lower, at, CONFIG_EXTS))
  )
    return 'agent-file';
  return 'harness-config';
}

/** Without tiergate: the call's model, the tier it named, the agent's model, else the parent's. */
export function withoutTiergate(
  obs: DispatchObservation,
  policy: Pick<Policy, 'tiers'>,
): { model: string | null; from: WithoutFrom; source: string | null } {
  const child = childOf(obs, policy as Policy);
  if (child.source === 'call') return { model: child.model, from: 'call', source: null };
  if (child.source === 'tier') return { model: child.model, from: 'tier', source: obs.requestedTier };
  if (child.source === 'agent') {
    const from = obs.agentModelFrom ?? null;
    return { model: child.model, from: agentLink(from), source: from };
  }
  // An agent-kind harness whose agent's model the config does not tell: not the parent's (as decide.ts reads it).
  if (obs.requestedAgent && obs.capability.rewriteKind === 'agent')
    return { model: null, from: 'unknown', source: null };
  return { model: obs.parentModel, from: 'parent', source: obs.parentModelSource };
}

function ratesOf(prices: PriceLookup, model: string | null, harness: DispatchObservation['harness']): RateList | null {
  if (!model) return null;
  const row = prices.resolve(model, harness).price;
  if (!row) return null;
  const r = effectiveRates(row.rates);
  return [r.input, r.output, r.cacheRead, r.cacheWrite5m, r.cacheWrite1h];
}

export function decisionDetail(
  obs: DispatchObservation,
  decision: Decision,
  prices: PriceLookup,
  policy: Pick<Policy, 'tiers'>,
): DecisionDetail {
  const without = withoutTiergate(obs, policy);
  const toModel = effectiveModel(obs, decision);
  const withoutRates = ratesOf(prices, without.model, obs.harness);
  return {
    kind: decisionKind(decision),
    without: without.model,
    withoutFrom: without.from,
    withoutSource: without.source,
    to: decision.action === 'correct' && !decision.ask ? decision.value : null,
    toModel,
    withoutRates,
    chosenRates: toModel === without.model ? withoutRates : ratesOf(prices, toModel, obs.harness),
    budget: decision.budget?.status ?? null,
  };
}

/** The record of a decision the harness never received: it ran the original input, so nothing was changed. */
export function undeliveredDetail(d: DecisionDetail): DecisionDetail {
  return { ...d, kind: 'allow', to: null, toModel: d.without, chosenRates: d.withoutRates };
}

import * as z from 'zod/mini';
import { HARNESS_IDS, TIERS, type Harness } from './harness-ids.js';

/**
 * Every harness tiergate plugs into, by id: the one list. What each one is lives in src/descriptors/<id>.ts (the facts
 * the dispatch path and the policy need) and its folder src/adapters/<id>/ (index.ts: the whole HarnessModule), listed
 * once in src/descriptors/index.ts and src/adapters/index.ts.
 */
export { HARNESS_IDS, TIERS, type Harness };
export const HarnessSchema = z.enum(HARNESS_IDS);

/** Tier names a brief or a config may use. `parent` means "the parent's own model". */
export const TierSchema = z.enum(TIERS);
export type Tier = z.infer<typeof TierSchema>;

/**
 * What a harness lets tiergate do with a dispatch. The engine reads only this, never the harness name, to decide
 * whether it may correct or must deny.
 */
export const CapabilitySchema = z.object({
  /** The harness honours a rewritten dispatch (seen per harness in the reference). */
  canRewrite: z.boolean(),
  /** The tool-input field a correction sets (`model`, `subagent_type`, `agent`), or null when none. */
  rewriteField: z.nullable(z.string()),
  /** Whether the field names a model (or model alias) or an agent/profile whose model the config maps. */
  rewriteKind: z.enum(['model', 'agent']),
  /** Values the field accepts; null = any model id the catalog prices. Claude: the four aliases only. */
  legalValues: z.nullable(z.array(z.string())),
  /** The harness shows a deny reason to the model so it can retry. */
  canDeny: z.boolean(),
});
export type Capability = z.infer<typeof CapabilitySchema>;

/** Tier -> the value a harness's dispatch field takes for it (a model id or alias, or an agent name). */
export type TierMap = Partial<Record<Tier, string>>;

/**
 * What any part of tiergate may know about a harness without loading its adapter (src/descriptors/<id>.ts):
 * pure data and functions of the policy, importing nothing but contracts, because the dispatch hook's policy defaults
 * and dist/hook.cjs's choice of bundle read it.
 */
export type HarnessDescriptor = {
  id: Harness;
  /** The harness's own name, for people (demo, doctor). */
  name: string;
  /** No binary of it was run: its support follows its documentation only (Cursor). */
  documentationOnly: boolean;
  /** What it honours at dispatch under this policy (it reads only its own `options`: Codex's rewrite switch). */
  capability(policy: HarnessOptionValues): Capability;
  /** The built-in policy's tiers for it (config/defaults.ts); empty where it routes by the user's own agents. */
  defaultTiers: TierMap;
  /** Its completions carry token usage. false: the ledger counts its runs but can price none (the report says so). */
  reportsUsage: boolean;
  /**
   * The event that tells tiergate, while the parent runs, that a child ended (it settles the child's place in the spend
   * summary). Absent: none does, so the fan-out limits (routing-engine/limits.ts) are not counted for it.
   */
  childEndEvent?: string;
  /**
   * Where a running child is stopped under `budgets.action: "stop"` (runtime/child-stop.ts), for doctor. Absent: no hook
   * sees a child's own tool call or request as a child's, so its children are refused at dispatch only.
   */
  childStop?: string;
  /**
   * Where an `ask` policy (routing-engine/ask.ts, issue 33 item 3) raises the harness's permission prompt, and when
   * nobody is there to answer it, for doctor. Absent: no prompt path, so `ask` acts as the non-ask action there.
   */
  askPrompt?: string;
  /** Native command-hook events its dispatch bundle (dist/hook-dispatch-<id>.cjs) serves; empty: no command hook dispatch. */
  dispatchEvents: readonly string[];
  /**
   * Lifecycle events whose manifest timeout is shorter than 10 s: the hook runner's deadline for each (ms), inside the
   * timeout by the process's start and exit (up to ~0.8 s on a loaded 2-core machine). Not for dispatch events.
   */
  eventDeadlinesMs?: Readonly<Record<string, number>>;
  /**
   * How the price lookup resolves an alias for it (`opus`): the catalog's alias tables, best first, and the words that
   * explain a hit. Absent: the table named by its id (`<id> alias`).
   */
  priceAliases?(opts: PriceAliasOptions): PriceAliases;
  /**
   * Top-level policy keys this harness owns, each named `<id><Name>` (Claude Code's provider): config/ validates, defaults
   * and judges them from here (config/harness-options.ts), and only this harness reads them (through its own accessor).
   */
  options?: Readonly<Record<string, HarnessOption>>;
  /**
   * It may bill a child by request at a multiplier instead of by token (its completions carry `multiplier`, ledger
   * migration 9): what the unit is called and who bills it, for the report's line about those runs.
   */
  requestBilling?: { unit: string; by: string };
};

/**
 * One policy key a harness owns. Its legal values are listed loosest first: a project file (not trusted) may only move
 * the user's value to the right (`tighten`), or not at all (`trusted-only`: it reprices, in some direction).
 */
export type HarnessOption = {
  values: readonly string[] | readonly boolean[];
  default: string | boolean;
  project: { kind: 'tighten'; stricter: string } | { kind: 'trusted-only'; why: string };
};

/**
 * The policy as a harness's own keys see it: `<id><Name>` -> value (contracts/config.ts Policy carries them). Unknown
 * here: only the harness that owns a key reads it, through its own accessor, which checks it.
 */
export type HarnessOptionValues = { readonly [key: `${Harness}${Capitalize<string>}`]: unknown };

/**
 * What the price lookup knows when it asks a harness for its alias tables: the policy (a harness reads its own keys:
 * Claude Code's provider) and what the harness's environment adds under its own keys (Claude Code's alias overrides,
 * from ANTHROPIC_DEFAULT_*_MODEL).
 */
export type PriceAliasOptions = HarnessOptionValues;

export type PriceAliases = {
  /** Keys of the catalog's `aliases`, best first. */
  tables: readonly string[];
  why: string;
  /** Alias -> model id, before any table. */
  overrides?: { names: Partial<Record<string, string>>; why: string };
};

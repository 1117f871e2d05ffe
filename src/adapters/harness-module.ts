/**
 * What a harness is to tiergate: one HarnessModule per folder (src/adapters/<id>/index.ts), listed once in
 * src/adapters/index.ts. Generic code (the observer pass, scan, install, doctor, demo, report, CLI) reads these
 * members and never switches on a harness's name. No hook process loads this for its handlers: a harness with command
 * hooks (its descriptor names dispatch events) has `command.ts` exporting `createCommandAdapter` (CommandAdapterFactory,
 * contracts/hook.ts), which the command-hook wiring loads by id (src/wiring/command-hooks.ts) and its dispatch entry
 * (src/entries/hook-dispatch-<id>.ts) bypasses for `dispatch-command.ts`; the policy defaults read only its descriptor (src/descriptors/<id>.ts).
 * (Installers and doctor checks load jsonc-parser, smol-toml and zod schemas: tens of ms a hook has no use for.)
 */
import type { Check } from '../contracts/check.js';
import type { Decision } from '../contracts/decision.js';
import type { DemoKit } from '../contracts/demo.js';
import type { Env } from '../contracts/env.js';
import type { HarnessDescriptor } from '../contracts/harness.js';
import type { DispatchObservation } from '../contracts/observation.js';
import type { PriceLookup } from '../contracts/prices.js';
import type { HarnessPlan, InstallContext } from '../install/plan.js';
import type { StoreReader, TranscriptParser } from '../observer/transcripts.js';

export type Installer = {
  planInstall(ctx: InstallContext): HarnessPlan;
  planUninstall(ctx: InstallContext): HarnessPlan;
  /**
   * After the harness's own uninstall command: a file it touched (backed up before), with what tiergate's entries left
   * behind taken out (Codex's marketplace and plugin tables). Absent: the file is judged as the command left it.
   */
  tidyTouched?(ctx: InstallContext, format: 'json' | 'toml', text: string): string;
  /**
   * Directories of tiergate's that the harness's own uninstall command leaves behind (Claude Code's plugin cache copy),
   * removed after it ran, each with what it is.
   */
  leftovers?(ctx: InstallContext): { dir: string; what: string }[];
  /** How `install --all` tells the harness is on this machine: any of these commands on PATH, or any of these dirs. */
  probe(ctx: InstallContext): { bins: string[]; dirs: string[] };
};

/** `tiergate explain --agent <name>`: a dispatch of the named agent, as the harness's dispatch hook in `projectDir` sees it. */
export type AgentExplainInput = {
  name: string;
  /** The model the call itself names (`--child`), if any. */
  callModel: string | null;
  parentModel: string;
  projectDir: string;
  env: Env;
  at: number;
};
export type AgentExplained = {
  observation: DispatchObservation;
  /** One line from the agent's definition to the decision: name → where its model comes from → price → outcome. */
  chain(decision: Decision, prices: PriceLookup): string;
  /** What `--json` shows beside the observation (Claude Code: the definition found and the child's model). */
  details: Record<string, unknown>;
};

export type HarnessModule = HarnessDescriptor & {
  /**
   * It hands the dispatch its session's running cost (the observation's sessionCostUsd, for budgets.sessionTotal):
   * through what, for people ("Claude Code's hooks module"). Absent: a session total is not known at its dispatches.
   */
  sessionCost?: { via: string };
  /** Reads its transcripts: the drain's late-flush re-reads and `tiergate scan`. */
  transcripts?: TranscriptParser;
  /** Where its transcripts are kept, for `tiergate scan` (the harness's documented environment variables). */
  scanRoots?(env: Env, home: string): string[];
  /** A database of its own that records its children, read by `tiergate scan` beside (or instead of) transcripts. */
  stores?: StoreReader;
  /** Moves what its in-process side could not append into the spool, before every drain (Claude Code's hooks module). */
  beforeDrain?(env: Env): void;
  installer: Installer;
  /** Its rows of `tiergate doctor`'s harness section. */
  doctor: readonly ((ctx: InstallContext) => Check)[];
  /** Resolves a named agent's model for `tiergate explain --agent`; absent: the command says it has none. */
  explainAgent?(input: AgentExplainInput): Promise<AgentExplained>;
  /** Replays its recorded payloads through its real code (`tiergate demo`); loaded on first use. */
  demo?: () => Promise<(kit: DemoKit) => Promise<void>>;
};

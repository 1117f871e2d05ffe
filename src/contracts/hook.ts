/**
 * What a command hook and its harness adapter agree on: the handler, its context and its answer. The runner
 * (src/hook-runner) calls handlers of this shape; adapters (src/adapters/<harness>) implement them; neither imports
 * the other.
 */
import type { Env } from './env.js';

/** What a command hook prints and how it exits. null = print nothing, exit 0 (the harness proceeds unchanged). */
export type HookAnswer = { stdout?: string; exitCode?: number } | null;

/** A harness's JSON answer as the hook's stdout; null stays null (print nothing). */
export const jsonAnswer = (v: unknown): HookAnswer => (v === null ? null : { stdout: JSON.stringify(v) });

/** How a hook run ended for the harness: its answer printed, or not (the deadline passed / tiergate failed open). */
export type Delivery = 'delivered' | 'deadline' | 'failed';

/** Runs `write` once the runner knows whether the answer reaches the harness (at once when it already knows). */
export type Defer = (write: (delivery: Delivery) => void) => void;

export type HookContext = {
  env: Env;
  harness: string;
  event: string;
  /** Epoch ms when the runner started; the deadline is startedAt + deadlineMs. */
  startedAt: number;
  deadlineMs: number;
  /**
   * For records that must say what the harness actually did (a dispatch decision): the runner calls the write when the
   * race between the handler and the deadline is settled. Absent outside the command runner: write at once.
   */
  defer?: Defer;
  /**
   * Work the harness need not wait for (an agent index for the next hook): run by the command runner's hookMain once
   * the answer is written, each step on its own (a throw is one diagnostic). Absent outside it, and not run when the
   * hook failed open: the caller then does without.
   */
  afterAnswer?: (work: () => void) => void;
};

/**
 * Milliseconds until the runner's deadline (negative once it passed): the one measure every inner budget is cut from
 * (the runner's timer, the observer pass and SQLite's busy wait in a SessionEnd hook), so none outlives the deadline.
 * The caller passes the clock: contracts stay as pure as the engine that imports them.
 */
export const timeLeft = (ctx: Pick<HookContext, 'startedAt' | 'deadlineMs'>, now: number): number =>
  ctx.startedAt + ctx.deadlineMs - now;

export type HookHandler = (payload: unknown, ctx: HookContext) => Promise<HookAnswer> | HookAnswer;

/** A harness's command adapter: handlers per native event name, and what to print when tiergate itself fails. */
export type CommandAdapter = {
  handlers: Record<string, HookHandler>;
  /** Cursor treats a missing answer badly: it gets an explicit allow on any internal failure. Others print nothing. */
  failOpen?: Record<string, HookAnswer>;
};

/** Harness name -> its command adapter, loaded on first use so a hook process evaluates only its own. */
export type AdapterTable = Record<string, () => Promise<CommandAdapter>>;

/**
 * What a harness's lifecycle handlers start after the fact, given to its command adapter by the wiring
 * (src/wiring/command-hooks.ts): an adapter does not import the observer pass or the team push, which read the
 * harness registry themselves.
 */
export type HookServices = {
  /** The observer pass (spool -> ledger, priced), bounded by the hook's deadline. */
  observe(env: Env, cwd: string | null, hook: Pick<HookContext, 'startedAt' | 'deadlineMs'>): void | Promise<void>;
  /** Starts the background push to the team ledger when team.url is set, and returns at once. */
  push(env: Env): void | Promise<void>;
};

/** What a harness's `command.ts` exports as `createCommandAdapter`: its adapter for every native event, given the services. */
export type CommandAdapterFactory = (services: HookServices) => CommandAdapter;

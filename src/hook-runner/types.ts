import type { Env } from '../io/paths.js';

/** What a command hook prints and how it exits. null = print nothing, exit 0 (the harness proceeds unchanged). */
export type HookAnswer = { stdout?: string; exitCode?: number } | null;

export type HookContext = {
  env: Env;
  harness: string;
  event: string;
  /** Epoch ms when the runner started; the deadline is startedAt + deadlineMs. */
  startedAt: number;
  deadlineMs: number;
};

export type HookHandler = (payload: unknown, ctx: HookContext) => Promise<HookAnswer> | HookAnswer;

/** A harness's command adapter: handlers per native event name, and what to print when tiergate itself fails. */
export type CommandAdapter = {
  handlers: Record<string, HookHandler>;
  /** Cursor treats a missing answer badly: it gets an explicit allow on any internal failure. Others print nothing. */
  failOpen?: Record<string, HookAnswer>;
};

/**
 * What a harness's demo (src/adapters/<harness>/demo.ts) replays its recorded payloads with: the kit src/demo/replay.ts
 * hands it, bound to the harness and a throw-away sandbox. Types only.
 */
import type { Env } from './env.js';
import type { HookAnswer } from './hook.js';

/** What the demo shows of one dispatch's answer: the text the model sees on a deny, the new value on a correction. */
export type DemoEffect = { modelSees: string | null; newValue: string | null };

// Recorded JSON is read and patched as loose records (paths and the project dir are rewritten into the sandbox).
export type DemoPayload = Record<string, any>;

export type DemoKit = {
  env: Env;
  /** The sandbox's project dir (every payload's cwd). */
  project: string;
  /** The sandbox root. */
  root: string;
  /** A recorded payload shipped under data/demo/. */
  json(rel: string): DemoPayload;
  /** Copies a shipped file into the sandbox's transcripts/ as `as`; returns its path. */
  stage(rel: string, as: string): string;
  /** Copies a shipped file to a path inside the sandbox (a harness's own config, such as pi's agent files). */
  place(rel: string, to: string): void;
  /** Runs one event through the real command-hook runner (payload cwd set to the project), reading its answer with `effect`. */
  command(event: string, payload: DemoPayload, effect: (answer: HookAnswer) => DemoEffect | null): Promise<void>;
  /** Runs one in-process step; a dispatch step returns its effect, which the kit pairs with the decision it spooled. */
  step(event: string, run: () => Promise<DemoEffect | null>): Promise<void>;
  /** Readers shared by harnesses: Claude-style `hookSpecificOutput`, and an in-process block or in-place edit. */
  effects: {
    hookSpecific(answer: HookAnswer): DemoEffect;
    inProcess(denial: string | null, before: unknown, after: unknown): DemoEffect;
  };
};

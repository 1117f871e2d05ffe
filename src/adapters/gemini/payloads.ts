/**
 * The parts of Gemini CLI's hook stdin tiergate reads (0.61.0, reference/gemini-cli.md §4, every field seen). Common
 * keys: session_id, transcript_path, cwd, hook_event_name, timestamp. A child's own events carry the parent's
 * session_id and transcript_path and no agent id; only BeforeTool/AfterTool on `invoke_agent` are read for dispatches.
 *
 * BeforeTool is the dispatch hook's payload: checked by hand here (no zod in the dispatch bundle, see
 * hook-runner/shims), loose like the zod schemas below, so a later Gemini CLI that adds keys still parses.
 */
import * as z from 'zod/mini';
import { lazySchema } from '../../contracts/lazy.js';
import { isRecord } from '../../contracts/record.js';
import { ShapeError } from '../../contracts/shape.js';

/** The one tool every subagent dispatch goes through (0.61.0: one generic tool, the agent named in agent_name). */
export const DISPATCH_TOOL = 'invoke_agent';

export type BeforeToolPayload = {
  session_id: string;
  transcript_path: string | null;
  cwd: string | null;
  hook_event_name: string;
  tool_name: string;
  tool_input: Record<string, unknown>;
};

const optionalString = (raw: Record<string, unknown>, key: string): string | null => {
  const v = raw[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ShapeError([key], 'string');
  return v;
};

const requiredString = (raw: Record<string, unknown>, key: string): string => {
  const v = raw[key];
  if (typeof v !== 'string') throw new ShapeError([key], 'string');
  return v;
};

/** Throws ShapeError (which names the key, never the value) on a payload that is not a BeforeTool one. */
export function beforeToolPayload(raw: unknown): BeforeToolPayload {
  if (!isRecord(raw)) throw new ShapeError([], 'object');
  const input = raw.tool_input;
  if (!isRecord(input)) throw new ShapeError(['tool_input'], 'object');
  return {
    session_id: requiredString(raw, 'session_id'),
    transcript_path: optionalString(raw, 'transcript_path'),
    cwd: optionalString(raw, 'cwd'),
    hook_event_name: requiredString(raw, 'hook_event_name'),
    tool_name: requiredString(raw, 'tool_name'),
    tool_input: input,
  };
}

// A function: the fields are built with the schema that spreads them, not at module load (contracts/lazy.ts).
const common = () => ({
  session_id: z.string(),
  transcript_path: z.nullish(z.string()),
  cwd: z.nullish(z.string()),
  hook_event_name: z.string(),
});

/**
 * AfterTool on invoke_agent: `tool_input` is the input that ran (the rewritten one after a correction, seen);
 * `tool_response.returnDisplay` carries the child's agent id as the prefix of `recentActivity[].id` (before `#`),
 * its state and terminate reason. No model and no usage (seen): those are in the child's chat file.
 */
export const AfterToolPayloadSchema = lazySchema(() =>
  z.looseObject({
    ...common(),
    tool_name: z.string(),
    tool_input: z.optional(z.record(z.string(), z.unknown())),
    tool_response: z.optional(z.unknown()),
  }),
);
export type AfterToolPayload = z.infer<typeof AfterToolPayloadSchema>;

/** SessionStart (`source`) and SessionEnd (`reason`). */
export const SessionPayloadSchema = lazySchema(() =>
  z.looseObject({
    ...common(),
    source: z.nullish(z.string()),
    reason: z.nullish(z.string()),
  }),
);
export type SessionPayload = z.infer<typeof SessionPayloadSchema>;

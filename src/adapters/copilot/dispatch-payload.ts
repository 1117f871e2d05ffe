/**
 * The preToolUse payload as the dispatch hook reads it: a hand-written guard with the same verdicts as
 * PreToolUsePayloadSchema (payloads.ts; test/unit/adapters/copilot/payloads.test.ts holds the two to each other), so the dispatch
 * bundle never loads zod. Copilot CLI 1.0.102 fires preToolUse for every tool (no matcher in the camelCase format), so
 * the tool name is looked at first and everything else only for `task`.
 */
import type { PreToolUsePayload } from './payloads.js';
import { isRecord } from '../../contracts/record.js';

/** The subagent tool's name in camelCase payloads (a PascalCase hooks file names it `Agent`; tiergate ships camelCase). */
export const TASK_TOOL = 'task';

/** Why a payload is not a preToolUse payload (never quoting its values: they may be prompt text). */
export class PayloadError extends Error {
  constructor(field: string, expected: string) {
    super(`invalid preToolUse payload at ${field}: expected ${expected}`);
    this.name = 'PayloadError';
  }
}

const optional = (p: Record<string, unknown>, key: string, type: 'string' | 'number'): void => {
  const v = p[key];
  if (v === undefined) return;
  if (type === 'number' ? typeof v !== 'number' || !Number.isFinite(v) : typeof v !== type)
    throw new PayloadError(key, type);
};

/** The tool the payload names, or null when it names none (read before anything else: most calls are not `task`). */
export function toolNameOf(raw: unknown): string | null {
  if (!isRecord(raw)) return null;
  return typeof raw.toolName === 'string' ? raw.toolName : null;
}

export const isTaskCall = (raw: unknown): boolean => toolNameOf(raw) === TASK_TOOL;

/** The payload, checked as PreToolUsePayloadSchema checks it; throws PayloadError where that schema would throw. */
export function readPreToolUse(raw: unknown): PreToolUsePayload {
  if (!isRecord(raw)) throw new PayloadError('(root)', 'object');
  if (typeof raw.sessionId !== 'string') throw new PayloadError('sessionId', 'string');
  if (typeof raw.toolName !== 'string') throw new PayloadError('toolName', 'string');
  if (!isRecord(raw.toolArgs)) throw new PayloadError('toolArgs', 'object');
  optional(raw, 'timestamp', 'number');
  for (const k of ['cwd', 'agentId', 'agentType', 'parentAgentId']) optional(raw, k, 'string');
  return raw as PreToolUsePayload;
}

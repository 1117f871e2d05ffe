/**
 * What `tiergate push --status` reads: when a push last succeeded, the last attempt and its error, for manual and
 * background pushes alike. The server is kept as host:port/database only (never a user or a password).
 */
import * as z from 'zod/mini';
import { writeFileAtomic } from '../io/files.js';
import type { Env } from '../io/paths.js';
import { readTeamFile, teamPaths } from './config.js';

const CountsSchema = z.object({ completions: z.int(), dispatches: z.int(), deleted: z.int() });

/** Rows the server refused and the push set aside (push.ts): how many are, and the latest few with the server's error. */
const AsideSchema = z.object({
  rows: z.int(),
  latest: z.array(z.object({ table: z.string(), key: z.string(), error: z.string(), at: z.string() })),
});

export const PushStatusSchema = z.object({
  format: z.literal('tiergate-push-status/1'),
  server: z.nullable(z.string()),
  origin: z.nullable(z.string()),
  user: z.nullable(z.string()),
  lastAttemptAt: z.nullable(z.string()),
  lastAttempt: z.nullable(z.enum(['ok', 'partial', 'failed'])),
  lastSuccessAt: z.nullable(z.string()),
  /** Rows the last successful (or partial) push sent. */
  lastSent: z.nullable(CountsSchema),
  /** One line, the password already taken out; null after a success. */
  lastError: z.nullable(z.string()),
  background: z.boolean(),
  /** Absent in the status of tiergates before set-aside rows (and until a push completes a batch). */
  setAside: z.optional(AsideSchema),
});
export type PushStatus = z.infer<typeof PushStatusSchema>;

const EMPTY: PushStatus = {
  format: 'tiergate-push-status/1',
  server: null,
  origin: null,
  user: null,
  lastAttemptAt: null,
  lastAttempt: null,
  lastSuccessAt: null,
  lastSent: null,
  lastError: null,
  background: false,
};

export function readPushStatus(env: Env = process.env): PushStatus {
  try {
    const parsed = PushStatusSchema.safeParse(JSON.parse(readTeamFile(teamPaths(env).status, 64 * 1024)));
    return parsed.success ? parsed.data : EMPTY;
  } catch {
    return EMPTY;
  }
}

export function recordPushStatus(env: Env, update: Partial<PushStatus>): PushStatus {
  const next = { ...readPushStatus(env), ...update };
  writeFileAtomic(teamPaths(env).status, `${JSON.stringify(next, null, 2)}\n`);
  return next;
}

/**
 * What one Cursor hook process leaves for the next (each hook is its own process): the parent's model per
 * conversation, because the Task payload's top-level `model` was `""` in a live 3.19.13 run (cursor.md §3), and the
 * decision already taken per Task `tool_use_id`, so subagentStart for the same dispatch answers the same without a
 * second ledger record. Bounded (entries and age); best effort: a lost write only means less context next time.
 */
import { diagnose, errorText } from '../../io/diagnostics.js';
import { writeFileAtomic } from '../../io/files.js';
import { readTextCapped } from '../../io/read-capped.js';
import { paths, type Env, joinPath } from '../../io/paths.js';
import type { HookAnswer } from '../../contracts/hook.js';

/** A public Cursor integration expires correlation state after 30 minutes (cursor.md §5). */
export const MEMORY_TTL_MS = 30 * 60 * 1000;
export const MEMORY_MAX_ENTRIES = 256;

type Entry<T> = { v: T; t: number };
export type CursorMemory = { models: Record<string, Entry<string>>; answers: Record<string, Entry<HookAnswer>> };

export function memoryFile(env: Env): string {
  return joinPath(paths(env).data, 'cursor-memory.json');
}

export const MEMORY_MAX_BYTES = 512 * 1024;

/** Empty when there is none yet; anything else unreadable is diagnosed (a lost memory only costs context). */
export function loadMemory(env: Env, now: number): CursorMemory {
  const empty: CursorMemory = { models: {}, answers: {} };
  try {
    const m = JSON.parse(readTextCapped(memoryFile(env), MEMORY_MAX_BYTES)) as CursorMemory;
    return { models: fresh(m.models, now), answers: fresh(m.answers, now) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      diagnose('warn', 'cursor:memory', `not read: ${errorText(err)}`, {}, env);
    return empty;
  }
}

function fresh<T>(map: Record<string, Entry<T>> | undefined, now: number): Record<string, Entry<T>> {
  const live = Object.entries(map ?? {}).filter(([, e]) => e && typeof e.t === 'number' && now - e.t < MEMORY_TTL_MS);
  live.sort((a, b) => b[1].t - a[1].t);
  return Object.fromEntries(live.slice(0, MEMORY_MAX_ENTRIES));
}

export function saveMemory(env: Env, m: CursorMemory, now: number): void {
  writeFileAtomic(memoryFile(env), JSON.stringify({ models: fresh(m.models, now), answers: fresh(m.answers, now) }));
}

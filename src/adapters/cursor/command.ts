/**
 * Cursor's command adapter for the hook runner (`node dist/hook.cjs cursor <event>`). Documentation only: no Cursor
 * binary was run. `failOpen` makes the runner print an allow even when the handler never ran (oversize stdin, bad
 * JSON, deadline), because Cursor reportedly blocks a permission hook that answers nothing.
 */
import type { CommandAdapter } from '../../contracts/hook.js';
import { appendSpool } from '../../observer/spool.js';
import { routeDispatch } from '../../runtime/dispatch.js';
import { makeCursorAdapter } from './handlers.js';

export const adapter = makeCursorAdapter({ route: routeDispatch, spool: appendSpool, now: Date.now });

/** For the registry (index.ts): Cursor's handlers start nothing after the fact, so the services go unused. */
export const createCommandAdapter = (): CommandAdapter => adapter;

/**
 * A dispatch whose hook missed its deadline: the harness goes ahead with the original input (Codex 0.169.0 and Claude
 * Code treat a timed-out hook as "proceed", reference/codex.md §5), so the ledger must not record a correction or a
 * denial that never took effect. The slow step is injected deterministically: the handler decides, then waits on a
 * promise that only the test resolves (or never), so the deadline always wins without any timing assumption.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createCodexHandlers, type CodexDeps } from '../../../src/adapters/codex/command.js';
import { loadRuntime } from '../../../src/config/runtime.js';
import { routeDispatch } from '../../../src/runtime/dispatch.js';
import { COMMAND_ADAPTERS } from '../../../src/wiring/command-hooks.js';
import { runHook } from '../../../src/wiring/command-hooks.js';
import { appendSpool, resetSpoolFile } from '../../../src/observer/spool.js';
import { runObserver } from '../../../src/collect/drain.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { queryReport } from '../../../src/report/query.js';
import { readSpool } from '../../e2e/support/spool-read.js';
import { testPricer } from '../observer/helpers.js';
import { fixture } from '../adapters/codex/support.js';

/** The real Codex handlers and routeDispatch; `after` runs between the decision and the answer (the slow step). */
function codexWith(opts: { before?: () => Promise<void>; after?: () => Promise<void> }) {
  const deps: CodexDeps = {
    route: async (obs, env, defer) => {
      await opts.before?.();
      const d = routeDispatch(obs, env, defer);
      await opts.after?.();
      return d;
    },
    spool: appendSpool,
    now: Date.now,
    runtime: loadRuntime,
    observe: () => undefined,
    refresh: () => undefined,
  };
  return async () => ({ handlers: createCodexHandlers(deps) });
}

const never = () => new Promise<void>(() => undefined);
const env = () => ({
  TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-deadline-')),
  TIERGATE_HOOK_DEADLINE_MS: '200',
  TIERGATE_PRICE_REFRESH: 'off',
});
/** Over the ceiling: parent gpt-6-sol asks for a gpt-6-astra child (denied by default on Codex). */
const overCeiling = () => {
  const p = fixture('PreToolUse.basic.json').payload;
  return Readable.from([
    Buffer.from(
      JSON.stringify({
        ...p,
        cwd: null,
        model: 'gpt-6-sol',
        tool_input: { ...(p.tool_input as object), model: 'gpt-6-astra' },
      }),
    ),
  ]);
};
const dispatches = (home: string) => readSpool(home).flatMap((r) => (r.type === 'dispatch' ? [r.decision] : []));

describe('a dispatch hook that misses its deadline', () => {
  it('control: answered in time, the denial is printed and recorded as a denial', async () => {
    COMMAND_ADAPTERS['codex-in-time'] = codexWith({});
    const e = env();
    resetSpoolFile();
    const r = await runHook('codex-in-time', 'PreToolUse', overCeiling(), e);
    expect(JSON.parse(r.answer!.stdout!).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(dispatches(e.TIERGATE_HOME)).toEqual([
      expect.objectContaining({ action: 'deny', reason: 'over-ceiling-denied', effectiveModel: null }),
    ]);
    // The decision record (issue 29): the call's model is what would have run; the denial set nothing.
    expect(dispatches(e.TIERGATE_HOME)[0]!.detail).toMatchObject({
      kind: 'deny',
      without: 'gpt-6-astra',
      withoutFrom: 'call',
      to: null,
      toModel: null,
    });
  });

  it('decided, then stalled past the deadline: nothing printed, recorded as allowed unchanged (reason deadline)', async () => {
    COMMAND_ADAPTERS['codex-stall-after'] = codexWith({ after: never });
    const e = env();
    resetSpoolFile();
    const r = await runHook('codex-stall-after', 'PreToolUse', overCeiling(), e);
    expect(r.answer).toBeNull();
    expect(r.failed).toMatch(/deadline/);
    expect(dispatches(e.TIERGATE_HOME)).toEqual([
      expect.objectContaining({ action: 'allow', reason: 'deadline', effectiveModel: 'gpt-6-astra', tier: null }),
    ]);
    // Its decision record says the same: nothing was changed, the child ran on what it would have without tiergate.
    expect(dispatches(e.TIERGATE_HOME)[0]!.detail).toMatchObject({
      kind: 'allow',
      without: 'gpt-6-astra',
      to: null,
      toModel: 'gpt-6-astra',
    });

    // In the ledger and the report: one dispatch, not denied, run on the model the child asked for.
    const db = openLedger(e);
    try {
      runObserver(e, testPricer(), db);
      expect(db.prepare('SELECT action, reason, effective_model FROM dispatches').all()).toEqual([
        { action: 'allow', reason: 'deadline', effective_model: 'gpt-6-astra' },
      ]);
      expect(queryReport(db, { by: 'harness' }).totals).toMatchObject({ dispatches: 1, denied: 0 });
    } finally {
      db.close();
    }
  });

  it('stalled before deciding, decided after the runner gave up: the late decision is recorded as not delivered', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let decided!: () => void;
    const done = new Promise<void>((resolve) => (decided = resolve));
    COMMAND_ADAPTERS['codex-stall-before'] = codexWith({ before: () => gate, after: async () => decided() });
    const e = env();
    resetSpoolFile();
    const r = await runHook('codex-stall-before', 'PreToolUse', overCeiling(), e);
    expect(r.answer).toBeNull();
    expect(dispatches(e.TIERGATE_HOME)).toEqual([]);
    release();
    await done;
    expect(dispatches(e.TIERGATE_HOME)).toEqual([
      expect.objectContaining({ action: 'allow', reason: 'deadline', effectiveModel: 'gpt-6-astra' }),
    ]);
  });

  it('a handler that fails after deciding (nothing printed) records the dispatch as allowed, reason internal-error', async () => {
    COMMAND_ADAPTERS['codex-throw-after'] = codexWith({
      after: async () => {
        throw new Error('formatting failed');
      },
    });
    const e = env();
    resetSpoolFile();
    const r = await runHook('codex-throw-after', 'PreToolUse', overCeiling(), e);
    expect(r.answer).toBeNull();
    expect(dispatches(e.TIERGATE_HOME)).toEqual([
      expect.objectContaining({ action: 'allow', reason: 'internal-error', effectiveModel: 'gpt-6-astra' }),
    ]);
  });
});

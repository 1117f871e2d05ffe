/**
 * tiergate's Claude Code hooks module (hooks.json `"modules"`), bundled to dist/claude-module.js with no imports.
 *
 * Claude Code (≥ 2.1.289; facts from 2.1.328, reference/claude-code.md §10) loads it into its own process and calls
 * it at `agent.spawn` with the parent's full model id: tiergate decides in-process, with no process start on the
 * dispatch path. Rules of that runtime this file obeys:
 *  - no Node, no Buffer, no require, no import(): every dependency is bundled; the build aliases node:* to shims;
 *  - `$` is read off the source before load: always spelled `$.noun.verb(...)` at the call site, never passed or
 *    spread, and `$.env.get/set` take string literals;
 *  - a throw before `next` skips the hook and the child runs unchanged (fail open); no `.catch` is registered, since
 *    one would turn a fault into a deny;
 *  - time in `$` calls is outside the hook's 10 s budget but not outside the user's wait: nothing here awaits a
 *    process, and spool writes happen after the child has started.
 */
import { ModuleCore, spoolFileText, type ModuleEnv, type SpawnEvent, type TurnCompleteEvent } from './core.js';
import { bundledLookup } from './prices.js';

type Next = (e: unknown) => Promise<unknown>;
// The `$` API as this module uses it. Typed loosely on purpose: the declarations are the binary's own (EARLY ACCESS).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Dollar = any;
type On = (event: string, hook: (...args: any[]) => unknown) => unknown;

const core: ModuleCore = new ModuleCore((): ReturnType<typeof bundledLookup> => bundledLookup(core.policy));
let ready: Promise<void> | null = null;
const INIT_WAIT_MS = 300;
/** A record write is a few ms (seen); past this bound it is abandoned rather than waited for. */
const WRITE_WAIT_MS = 2000;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

async function writeSpool($: Dollar, body: Parameters<typeof spoolFileText>[0]): Promise<void> {
  try {
    const path = core.nextSpoolPath(Date.now());
    if (path === null) {
      if (core.spoolFullOnce()) await $.ui.log('tiergate: module spool full; completions wait until the next drain', { to: 'debug' });
      return;
    }
    await Promise.race([$.fs.write(path, spoolFileText(body)), new Promise((resolve) => setTimeout(resolve, WRITE_WAIT_MS))]);
  } catch {
    // A record lost is a ledger gap, never a blocked dispatch.
  }
}

/** Session facts, policy and spool state, read once through `$` (a few ms, at session start, off the dispatch path). */
async function init($: Dollar): Promise<void> {
  const hookEnv = ((await $.process.hookEnv()) ?? {}) as Record<string, string | undefined>;
  const env: ModuleEnv = {
    HOME: str(await $.env.get('HOME')),
        XDG_DATA_HOME: str(await $.env.get('XDG_DATA_HOME')),
    TIERGATE_HOME: str(await $.env.get('TIERGATE_HOME')),
    CLAUDE_PLUGIN_DATA: str(hookEnv.CLAUDE_PLUGIN_DATA),
  };
  core.sessionId = str(await $.session.id()) ?? null;
  core.cwd = str(await $.session.cwd()) ?? str(hookEnv.CLAUDE_PROJECT_DIR) ?? null;
  core.setEnv(env);
  const handoff = core.handoffPath();
  let text: string | null = null;
  try {
    if (handoff && (await $.fs.exists(handoff))) text = String(await $.fs.read(handoff, { offset: 0, length: 256 * 1024 }));
  } catch {
    text = null;
  }
  core.usePolicy(text);
  const dir = core.spoolDir();
  if (dir) {
    try {
      if (await $.fs.exists(dir)) core.spoolFiles = ((await $.fs.list(dir)) as unknown[]).length;
    } catch {
      /* unknown: start from zero; the cap still bounds this session's writes */
    }
  }
  for (const message of core.policyDiagnostics) await writeSpool($, { diagnostic: { level: 'warn', where: 'claude-module:config', message, at: Date.now() } });
}

export function register(on: On): void {
  // Announce the module before the SessionStart command hook runs (it runs inside next(e)): from here on every
  // command hook of this session sees TIERGATE_MODULE_LIVE=1 and stands down (seen on 2.1.328, reference §10.7).
  on('classic.SessionStart', async ($: Dollar, e: unknown, next: Next) => {
    try {
      await $.env.set('TIERGATE_MODULE_LIVE', '1');
    } catch {
      /* the command hooks then decide, as without a module */
    }
    return next(e);
  });

  on('session.start', async ($: Dollar, e: unknown, next: Next) => {
    const r = await next(e);
    ready = init($).catch(() => undefined);
    await ready;
    return r;
  });

  on('agent.spawn', async ($: Dollar, e: SpawnEvent, next: Next) => {
    if (ready === null) {
      ready = init($).catch(() => undefined);
    }
    // Time in `$` calls does not count against the hook's budget, so a stuck init must not hold the dispatch: past
    // this wait the decision uses whatever init has set (the built-in defaults at worst).
    await Promise.race([ready, new Promise((resolve) => setTimeout(resolve, INIT_WAIT_MS))]);
    const now = Date.now();
    const verdict = core.onSpawn(e, now);
    if (verdict.kind === 'deny') {
      await writeSpool($, { record: verdict.record });
      return { deny: verdict.message };
    }
    const result = (await next(verdict.kind === 'correct' ? { ...e, model: verdict.model } : e)) as { agentId?: unknown } | undefined;
    core.onSpawned(result?.agentId, str(e.tool_use_id) ?? null, e.fork === true ? 'fork' : str(e.subagentType) ?? null, now);
    if (verdict.record) await writeSpool($, { record: verdict.record });
    return result;
  });

  on('turn.complete', async ($: Dollar, e: TurnCompleteEvent, next: Next) => {
    const r = await next(e);
    const record = core.onTurnComplete(e, Date.now());
    if (record) await writeSpool($, { record });
    return r;
  });
}

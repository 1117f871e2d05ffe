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
import { withoutTrailingSlashes } from '../../../io/text.js';
import { ModuleCore, spoolFileText, type ModuleEnv, type SpawnEvent, type TurnCompleteEvent } from './core.js';
import { bundledLookup } from './prices.js';
import {
  agentLookup,
  resolveChildModel,
  warmUpAgentLookup,
  type ChildModel,
  type ClaudeModelEnv,
} from '../agent-definitions.js';
import { LookupDeadline, type AgentFs, type AgentFsEntry } from '../../../agent-files/fs.js';
import { AgentFsSnapshot } from '../../../agent-files/fs-snapshot.js';
import {
  emptySpend,
  foldJournal,
  isRecentEntry,
  parseSpend,
  SPEND_JOURNAL_DIR,
  SPEND_MAX_BYTES,
  type ReadSpend,
  type RecentEntry,
  type SpendFile,
} from '../../../observer/spend-summary.js';
import { HELD_MAX_BYTES, parseHeld, SPEND_HELD_FILE, withHeld } from '../../../observer/spend-held.js';
import { hasBudget, type SpendState } from '../../../routing-engine/budget.js';
import { policyAsks } from '../../../routing-engine/ask.js';
import { attended } from '../attended.js';
import { numberToDecimal } from '../../../prices/decimal.js';
import { waitAtMost, withDeadline } from '../../../io/deadline.js';

type Next = (e: unknown) => Promise<unknown>;
// The `$` API as this module uses it. Typed loosely on purpose: the declarations are the binary's own (EARLY ACCESS).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Dollar = any;
type On = (event: string, hook: (...args: any[]) => unknown) => unknown;

const core: ModuleCore = new ModuleCore((): ReturnType<typeof bundledLookup> => bundledLookup(core.policy));
let ready: Promise<void> | null = null;
/** Someone is at this session's terminal (CLAUDE_CODE_SESSION_ATTENDED, read once by init). */
let attendedSession = false;
/** The classic.SessionStart chain (the command hook that writes the policy hand-off) has run. */
let sessionStartHookDone = false;
const INIT_WAIT_MS = 300;
/**
 * The agent lookup's whole budget at one dispatch (its `$.fs` calls are outside the hook's own 10 s budget but inside
 * the user's wait): past it the child's model is unknown, nothing is rewritten, and the spawn goes on.
 */
const AGENT_LOOKUP_MS = 400;
/** Reading the session's agent folders into the copy (off the dispatch path): at most this long, then what was read is kept. */
const AGENT_WARM_MS = 3000;
/** Reading the spend summary (and the session's cost) at a dispatch with a budget set: past this, budgets fail open. */
const SPEND_READ_MS = 400;
/** A record write is a few ms (seen); past this bound it is abandoned rather than waited for. */
const WRITE_WAIT_MS = 2000;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

async function writeSpool($: Dollar, body: Parameters<typeof spoolFileText>[0]): Promise<void> {
  try {
    const path = core.nextSpoolPath(Date.now());
    if (path === null) {
      if (core.spoolFullOnce())
        await $.ui.log('tiergate: module spool full; completions wait until the next drain', { to: 'debug' });
      return;
    }
    await waitAtMost($.fs.write(path, spoolFileText(body)), WRITE_WAIT_MS);
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
  const home = env.HOME ?? null;
  // `$.env.get` takes its name as a literal (the runtime reads the source before load), hence one call per variable;
  // concurrent, since each is a hop to Claude Code's main thread.
  const [configDir, sub, force, noCap, bedrock, vertex, foundry, aws, gcp, mantle] = (
    await Promise.all([
      $.env.get('CLAUDE_CONFIG_DIR'),
      $.env.get('CLAUDE_CODE_SUBAGENT_MODEL'),
      $.env.get('CLAUDE_CODE_SUBAGENT_MODEL_FORCE'),
      $.env.get('CLAUDE_CODE_DISABLE_EXPLORE_INHERIT_CAP'),
      $.env.get('CLAUDE_CODE_USE_BEDROCK'),
      $.env.get('CLAUDE_CODE_USE_VERTEX'),
      $.env.get('CLAUDE_CODE_USE_FOUNDRY'),
      $.env.get('CLAUDE_CODE_USE_ANTHROPIC_AWS'),
      $.env.get('CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD'),
      $.env.get('CLAUDE_CODE_USE_MANTLE'),
    ])
  ).map(str);
  core.agentPlaces = {
    projectDir: core.cwd,
    configDir: configDir ?? (home ? `${withoutTrailingSlashes(home)}/.claude` : null),
    home,
  };
  const modelEnv: ClaudeModelEnv = {
    CLAUDE_CODE_SUBAGENT_MODEL: sub,
    CLAUDE_CODE_SUBAGENT_MODEL_FORCE: force,
    CLAUDE_CODE_DISABLE_EXPLORE_INHERIT_CAP: noCap,
    CLAUDE_CODE_USE_BEDROCK: bedrock,
    CLAUDE_CODE_USE_VERTEX: vertex,
    CLAUDE_CODE_USE_FOUNDRY: foundry,
    CLAUDE_CODE_USE_ANTHROPIC_AWS: aws,
    CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD: gcp,
    CLAUDE_CODE_USE_MANTLE: mantle,
  };
  core.modelEnv = modelEnv;
  await readAgentFolders($);
  attendedSession = attended(hookEnv);
  await loadHandoff($);
  const dir = core.spoolDir();
  if (dir) {
    try {
      if (await $.fs.exists(dir)) core.spoolFiles = ((await $.fs.list(dir)) as unknown[]).length;
    } catch {
      /* unknown: start from zero; the cap still bounds this session's writes */
    }
  }
  // Before the SessionStart command hook has run (the TUI's order) a missing hand-off is not yet a fault: the
  // classic.SessionStart handler reads it again and reports then.
  if (sessionStartHookDone) await writePolicyDiagnostics($);
}

/**
 * The policy the SessionStart command hook handed off, and what it arms: read at session.start and again once the
 * classic.SessionStart chain (which runs that hook) is done. Why both: under `-p` the hook has written the hand-off
 * before session.start, in the TUI session.start settles first (2.1.332, seen in the debug log: session.start 196 ms,
 * classic.SessionStart 160 ms later), which left an interactive session on the built-in defaults.
 */
async function loadHandoff($: Dollar): Promise<void> {
  const handoff = core.handoffPath();
  let text: string | null = null;
  try {
    if (handoff && (await $.fs.exists(handoff)))
      text = String(await $.fs.read(handoff, { offset: 0, length: 256 * 1024 }));
  } catch {
    text = null;
  }
  core.usePolicy(text);
  // The module sees no child's own tool call (2.1.328: `tool.call` carries no agentId), so under `budgets.action:
  // "stop"` it arms the PreToolUse command hook for every tool call of this session (hooks.json) to check children.
  if (core.policy.mode === 'on' && core.policy.budgets.action === 'stop' && hasBudget(core.policy.budgets)) {
    try {
      await $.env.set('TIERGATE_CHILD_STOP', '1');
    } catch {
      /* children are then stopped only at their next dispatch */
    }
  }
  // Asking needs the PreToolUse command hook (agent.spawn comes after the permission check): armed for this session when
  // the policy asks and someone is at the terminal (CLAUDE_CODE_SESSION_ATTENDED, as the command hook reads it). Its
  // own hooks.json entry (matcher Agent|Task) starts it for dispatches only: other tool calls stay on the shell test.
  if (core.policy.mode === 'on' && policyAsks(core.policy) && attendedSession) {
    try {
      // A literal name: Claude Code reads `$` calls off the module's source before loading it (2.1.332 refused the
      // module with a constant here, and the command hooks then decided every dispatch; attended.ts ASK_VAR).
      await $.env.set('TIERGATE_ASK', '1');
      core.askArmed = true;
    } catch {
      /* the module then decides as without ask: the non-ask action */
    }
  }
}

async function writePolicyDiagnostics($: Dollar): Promise<void> {
  for (const message of core.policyDiagnostics)
    await writeSpool($, { diagnostic: { level: 'warn', where: 'claude-module:config', message, at: Date.now() } });
}

/** A `$` call cut at the lookup's deadline: a LookupDeadline then, never a silent "absent". */
const within = <T>(p: Promise<T>, deadline: number): Promise<T> =>
  withDeadline(p, deadline - Date.now(), 'claude-module:lookup', () => new LookupDeadline());

/**
 * The agent lookup's file operations through `$.fs` (2.1.328: list -> [{ name, kind: file|dir|other, isLink, … }],
 * stat(path, { resolve }) -> { kind, size, … }, read(path, { offset, length }) -> text). Only a regular file is read (a
 * FIFO is `other`), and at most `maxBytes` of it.
 */
function moduleAgentFs($: Dollar, deadline: number): AgentFs {
  const kindOf = (k: unknown): AgentFsEntry['kind'] => (k === 'file' || k === 'dir' ? k : 'other');
  return {
    list: async (dir) => {
      let raw: unknown;
      try {
        raw = await within($.fs.list(dir), deadline);
      } catch (err) {
        if (err instanceof LookupDeadline) throw err;
        return null;
      }
      if (!Array.isArray(raw)) return null;
      const out: AgentFsEntry[] = [];
      for (const e of raw.slice(0, 513) as Array<{ name?: unknown; kind?: unknown; isLink?: unknown }>) {
        if (typeof e?.name !== 'string') continue;
        let kind = kindOf(e.kind);
        if (e.isLink === true) {
          try {
            kind = kindOf(
              ((await within($.fs.stat(`${dir}/${e.name}`, { resolve: true }), deadline)) as { kind?: unknown })?.kind,
            );
          } catch (err) {
            if (err instanceof LookupDeadline) throw err;
            kind = 'other';
          }
        }
        out.push({ name: e.name, kind });
      }
      return out;
    },
    head: async (path, maxBytes) => {
      const st = (await within($.fs.stat(path, { resolve: true }), deadline)) as { kind?: unknown } | undefined;
      if (st?.kind !== 'file') throw new Error(`not a regular file (${String(st?.kind)})`);
      return String(await within($.fs.read(path, { offset: 0, length: maxBytes }), deadline));
    },
    exists: async (path) => {
      try {
        return (await within($.fs.exists(path), deadline)) === true;
      } catch (err) {
        if (err instanceof LookupDeadline) throw err;
        return false;
      }
    },
  };
}

/**
 * The summary file through `$.fs`, as the Node side reads it (observer/spend-read.ts): found by listing the data dir,
 * whose entries say whether a name is a link (2.1.328: { name, kind, isLink }), so a link or anything but a regular
 * file there is refused, never followed; absent is a true $0; at most SPEND_MAX_BYTES read.
 */
async function readSpendFile($: Dollar, deadline: number): Promise<ReadSpend> {
  const place = core.spendPlace();
  if (!place) return { file: null, error: 'no data dir' };
  try {
    const entries = (await within($.fs.list(place.dir), deadline)) as Array<{
      name?: unknown;
      kind?: unknown;
      isLink?: unknown;
    }> | null;
    const entry = Array.isArray(entries) ? entries.find((x) => x?.name === place.name) : undefined;
    // The completions not merged yet (spend-journal.ts) and the reservations held (spend-held.ts), read before the
    // summary, as the Node reader does.
    const journal = Array.isArray(entries) ? await readJournalEntries($, place.dir, entries, deadline) : [];
    const heldEntry = Array.isArray(entries) ? entries.find((x) => x?.name === SPEND_HELD_FILE) : undefined;
    if (heldEntry && (heldEntry.kind !== 'file' || heldEntry.isLink === true))
      return { file: null, error: 'held reservations are not a regular file' };
    const held = heldEntry
      ? parseHeld(
          String(
            await within($.fs.read(`${place.dir}/${SPEND_HELD_FILE}`, { offset: 0, length: HELD_MAX_BYTES }), deadline),
          ),
        ).lines
      : [];
    const counted = (f: SpendFile): SpendFile => {
      const all = held.length ? withHeld(f, held) : f;
      return journal.length ? foldJournal(all, journal, Date.now()) : all;
    };
    if (!entry) return { file: journal.length || held.length ? counted(emptySpend(Date.now())) : null, error: null };
    if (entry.kind !== 'file' || entry.isLink === true)
      return {
        file: null,
        error: `spend summary is not a regular file (${entry.isLink === true ? 'a link' : String(entry.kind)})`,
      };
    const parsed = parseSpend(
      String(await within($.fs.read(`${place.dir}/${place.name}`, { offset: 0, length: SPEND_MAX_BYTES }), deadline)),
    );
    if (typeof parsed === 'string') return { file: null, error: parsed };
    return { file: counted(parsed), error: null };
  } catch (err) {
    // A data dir not created yet lists as an error too: nothing recorded, unless the deadline cut the read.
    return err instanceof LookupDeadline
      ? { file: null, error: `spend summary not read within ${SPEND_READ_MS} ms` }
      : { file: null, error: null };
  }
}

/** At most this many journal entries are read through `$.fs` (each merge empties the journal; normally none are left). */
const JOURNAL_READ_MAX = 64;

/** The journal's entries (spend.d/ in the data dir), never through a link; unreadable ones skipped (merged meanwhile). */
async function readJournalEntries(
  $: Dollar,
  dir: string,
  dataEntries: Array<{ name?: unknown; kind?: unknown; isLink?: unknown }>,
  deadline: number,
): Promise<RecentEntry[]> {
  const d = dataEntries.find((x) => x?.name === SPEND_JOURNAL_DIR);
  if (!d || d.kind !== 'dir' || d.isLink === true) return [];
  const listed = (await within($.fs.list(`${dir}/${SPEND_JOURNAL_DIR}`), deadline)) as Array<{
    name?: unknown;
    kind?: unknown;
    isLink?: unknown;
  }> | null;
  if (!Array.isArray(listed)) return [];
  const names = listed
    .filter((x) => x?.kind === 'file' && x.isLink !== true && typeof x.name === 'string' && x.name.endsWith('.json'))
    .map((x) => x.name as string)
    .sort()
    .slice(0, JOURNAL_READ_MAX);
  const out: RecentEntry[] = [];
  for (const name of names) {
    try {
      const v: unknown = JSON.parse(
        String(await within($.fs.read(`${dir}/${SPEND_JOURNAL_DIR}/${name}`, { offset: 0, length: 4096 }), deadline)),
      );
      if (isRecentEntry(v)) out.push(v);
    } catch (err) {
      if (err instanceof LookupDeadline) throw err;
    }
  }
  return out;
}

/**
 * The spend the budgets check this dispatch against, when the policy sets one: the summary beside the ledger, and
 * Claude Code's own figure for the whole session ($.session.usage().cost.usd, 2.1.328) when budgets.sessionTotal is set.
 */
async function spendState(
  $: Dollar,
  now: number,
  child: { agent: string | null; model: string | null },
): Promise<SpendState | undefined> {
  if (!core.needsSpend()) return undefined;
  const deadline = Date.now() + SPEND_READ_MS;
  const wantsTotal = core.policy.budgets.sessionTotal !== undefined;
  const [read, usage] = await Promise.all([
    readSpendFile($, deadline),
    wantsTotal ? within($.session.usage(), deadline).catch(() => null) : Promise.resolve(null),
  ]);
  const usd = (usage as { cost?: { usd?: unknown } } | null)?.cost?.usd;
  const total = typeof usd === 'number' ? numberToDecimal(usd) : null;
  if (read.error)
    await writeSpool($, {
      diagnostic: {
        level: 'warn',
        where: 'claude-module:budget',
        message: `budgets not checked: ${read.error}`,
        at: now,
      },
    });
  return core.spendFrom(read, now, total, child);
}

/** What Claude Code runs this child on without tiergate, read through `$` within AGENT_LOOKUP_MS. */
async function childModel($: Dollar, e: SpawnEvent, now: number): Promise<ChildModel> {
  const deadline = Date.now() + AGENT_LOOKUP_MS;
  // A served model mix can set these two while the session runs (2.1.328 source): read at each dispatch.
  let env = core.modelEnv;
  try {
    const [sub, force] = await within(
      Promise.all([$.env.get('CLAUDE_CODE_SUBAGENT_MODEL'), $.env.get('CLAUDE_CODE_SUBAGENT_MODEL_FORCE')]),
      deadline,
    );
    env = { ...env, CLAUDE_CODE_SUBAGENT_MODEL: str(sub), CLAUDE_CODE_SUBAGENT_MODEL_FORCE: str(force) };
  } catch {
    /* the values read at session start */
  }
  // The copy of the agent folders answers; only what it lacks is read now (and kept for the next dispatch).
  const snapshot = core.agentSnapshot ?? (core.agentSnapshot = new AgentFsSnapshot(now));
  const fork = e.fork === true || e.subagentType === 'fork';
  return resolveChildModel({
    subagentType: fork ? 'fork' : (str(e.subagentType) ?? null),
    callModel: str(e.model) ?? null,
    fork,
    parentModel: str(e.parentModel) ?? null,
    env,
    lookup: agentLookup(snapshot.view(moduleAgentFs($, deadline)), core.agentPlaces),
  });
}

/**
 * Reads the session's agent folders (managed, project, user, installed plugins') and Claude Code's plugin registry into a new copy: at
 * session start and after a parent turn once the copy is old, never at a dispatch. A read cut short keeps what it got.
 */
async function readAgentFolders($: Dollar): Promise<void> {
  const snapshot = new AgentFsSnapshot(Date.now());
  const fs = snapshot.view(moduleAgentFs($, Date.now() + AGENT_WARM_MS));
  try {
    await warmUpAgentLookup(fs, core.agentPlaces);
  } catch {
    /* partial: the dispatch reads what is missing */
  }
  core.agentSnapshot = snapshot;
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
    const r = await next(e);
    sessionStartHookDone = true;
    // The hand-off is written now (the SessionStart command hook ran inside next): read it if init ran before it.
    if (ready !== null) {
      await waitAtMost(ready, INIT_WAIT_MS);
      await loadHandoff($).catch(() => undefined);
      await writePolicyDiagnostics($).catch(() => undefined);
    }
    return r;
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
    await waitAtMost(ready, INIT_WAIT_MS);
    const now = Date.now();
    let child: ChildModel;
    try {
      child = await childModel($, e, now);
    } catch (err) {
      child = {
        requestedModel: null,
        agentModel: null,
        agentModelFrom: null,
        rewriteHonoured: false,
        unknown: `agent lookup failed: ${String((err as Error)?.message ?? err)}`,
      };
    }
    let spend: SpendState | undefined;
    try {
      const agent = e.fork === true ? 'fork' : (str(e.subagentType) ?? null);
      spend = await spendState($, now, {
        agent,
        model: child.requestedModel ?? child.agentModel ?? str(e.parentModel) ?? null,
      });
    } catch {
      spend = undefined; // budgets fail open
    }
    const verdict = core.onSpawn(e, now, child, spend);
    if (verdict.kind === 'deny') {
      await writeSpool($, { record: verdict.record });
      return { deny: verdict.message };
    }
    let result: { agentId?: unknown } | undefined;
    try {
      result = (await next(verdict.kind === 'correct' ? { ...e, model: verdict.model } : e)) as typeof result;
    } finally {
      // No child started (next threw, or gave no agentId): onSpawned stops counting it as running.
      core.onSpawned(
        result?.agentId,
        str(e.tool_use_id) ?? null,
        e.fork === true ? 'fork' : (str(e.subagentType) ?? null),
        now,
        verdict.running,
      );
    }
    if (verdict.record) await writeSpool($, { record: verdict.record });
    if (child.unknown)
      await writeSpool($, {
        diagnostic: {
          level: 'warn',
          where: 'claude-module:agent',
          message: `${child.unknown}; no default tier, no correction`,
          at: now,
        },
      });
    return result;
  });

  on('turn.complete', async ($: Dollar, e: TurnCompleteEvent, next: Next) => {
    const r = await next(e);
    const record = core.onTurnComplete(e, Date.now());
    if (record) {
      await writeSpool($, { record });
      const journal = core.journalFile(record, Date.now());
      if (journal)
        try {
          await waitAtMost($.fs.write(journal.path, journal.text), WRITE_WAIT_MS);
        } catch {
          /* counted at the next drain instead */
        }
    }
    // After a parent turn (no agentId), not a child's: the next dispatch sees agent files edited since the last read.
    if (typeof e.agentId !== 'string' && core.agentSnapshotStale(Date.now())) await readAgentFolders($);
    return r;
  });
}

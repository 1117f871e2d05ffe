/**
 * The decisions and records of tiergate's Claude Code hooks module, free of the `$` API so tests can drive it in Node.
 * index.ts wires it to `$` (the module runtime, 2.1.328: no Node, no Buffer, no require/import(), reference §10.2).
 *
 * Everything here is synchronous and bounded; nothing throws out of it (every entry point catches and reports).
 */
import type { Decision } from '../../../contracts/decision.js';
import type { Policy } from '../../../contracts/config.js';
import type { CompletionObservation, DispatchObservation } from '../../../contracts/observation.js';
import type { SpoolRecord } from '../../../contracts/spool.js';
import { CLAUDE_MODEL_ALIASES } from '../../../descriptors/claude.js';
import { DEFAULT_POLICY } from '../../../config/defaults.js';
import { paths } from '../../../io/paths.js';
import { join } from 'node:path';
import { decide, type PriceLookup } from '../../../routing-engine/decide.js';
import { hasBudget, type SpendState } from '../../../routing-engine/budget.js';
import { hasLimits } from '../../../routing-engine/limits.js';
import {
  configuredReserve,
  countCompletion,
  emptySpend,
  estimateCost,
  sessionKey,
  MAX_RECENT,
  SPEND_FILE,
  SPEND_JOURNAL_DIR,
  spendStateFrom,
  type ReadSpend,
  type RecentEntry,
} from '../../../observer/spend-summary.js';
import { spendEntry } from '../../../observer/spend-entry.js';
import { pricerFromLookup } from '../../../observer/pricing.js';
import { costOf } from '../../../prices/cost.js';
import { effectiveModel } from '../../../runtime/effective-model.js';
import { decisionDetail, undeliveredDetail } from '../../../runtime/decision-record.js';
import { extractOutcome } from '../../../observer/outcome.js';
import { claudeUsage } from '../usage.js';
import { claudeDispatch } from '../observe.js';
import type { AgentPlaces, ChildModel, ClaudeModelEnv } from '../agent-definitions.js';
import type { AgentFsSnapshot } from '../../../agent-files/fs-snapshot.js';

/** The module's spool: one small JSON file per record, since `$.fs.write` writes whole files and cannot append. */
export const MODULE_SPOOL_FORMAT = 'tiergate-claude-module/1';
export const MODULE_SPOOL_SUBDIR = 'claude-module';
/** At most this many unread records; past it the module stops writing (the drain is overdue) and says so once. */
export const MODULE_SPOOL_MAX_FILES = 2000;
/** Open dispatches remembered for the completion join (agentId -> dispatch); oldest dropped past this. */
const MAX_OPEN = 500;

/** Where the module's records wait for the drain (src/adapters/claude/module-spool.ts). */
export const moduleSpoolDir = (dataDir: string): string => join(dataDir, 'spool', MODULE_SPOOL_SUBDIR);

/** What the module knows of its surroundings, read through `$` at session start. */
export type ModuleEnv = {
  HOME?: string;
  XDG_CONFIG_HOME?: string;
  XDG_DATA_HOME?: string;
  TIERGATE_HOME?: string;
  CLAUDE_PLUGIN_DATA?: string;
};

/** The agent.spawn event (2.1.328, fixtures/claude/modules/agent.spawn.*.json). Only what tiergate reads. */
export type SpawnEvent = {
  tool_use_id?: string;
  prompt?: string;
  description?: string;
  subagentType?: string;
  model?: string;
  parentModel?: string;
  background?: boolean;
  fork?: boolean;
};

export type TurnCompleteEvent = {
  agentId?: string;
  turnId?: string;
  reason?: string;
  answer?: string;
  isAborted?: boolean;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
    model?: string;
  };
};

/** `running`: the key the child is counted under as running (onSpawned takes it back); absent when not counted. */
export type SpawnVerdict =
  | { kind: 'proceed'; record: SpoolRecord | null; running?: string }
  | { kind: 'correct'; model: string; record: SpoolRecord; running: string }
  | { kind: 'deny'; message: string; record: SpoolRecord };

const LEGAL = new Set<string>(CLAUDE_MODEL_ALIASES);

/**
 * The policy hand-off. The module does not parse the user's config itself: validating it needs zod, ~700 KB that
 * Claude Code would read at every session start. The SessionStart command hook (Node, running inside the module's
 * classic.SessionStart) resolves the full policy with loadPolicy() and writes it here; the module reads it at
 * session.start. Missing or malformed -> the built-in defaults.
 */
export const policyHandoffPath = (dataDir: string, sessionId: string): string =>
  join(dataDir, MODULE_SPOOL_SUBDIR, `policy-${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);

/**
 * `rewriteIgnored`: the SessionStart hook found Claude's "rewrite ignored" marker (observer/rewrite-marker.ts) and the
 * policy says onIgnoredRewrite: deny, so this session denies with a retry instead of correcting. The module cannot
 * read the marker per dispatch as the command hook does (no Node fs): a marker written mid-session counts from the next.
 */
export function policyFromHandoff(text: string | null): {
  policy: Policy;
  diagnostics: string[];
  rewriteIgnored: boolean;
} {
  if (text === null)
    return {
      policy: DEFAULT_POLICY,
      diagnostics: ['no policy hand-off from the SessionStart hook; built-in defaults'],
      rewriteIgnored: false,
    };
  try {
    const v = JSON.parse(text) as { format?: string; policy?: Policy; rewriteIgnored?: unknown };
    const p = v.policy;
    const ok =
      v.format === POLICY_HANDOFF_FORMAT &&
      p &&
      typeof p === 'object' &&
      ['on', 'warn', 'off'].includes(p.mode) &&
      p.tiers &&
      typeof p.tiers.claude === 'object' &&
      typeof p.priceOverrides === 'object' &&
      typeof p.claudeProvider === 'string';
    return ok
      ? { policy: p, diagnostics: [], rewriteIgnored: v.rewriteIgnored === true && p.onIgnoredRewrite === 'deny' }
      : {
          policy: DEFAULT_POLICY,
          diagnostics: ['policy hand-off malformed; built-in defaults'],
          rewriteIgnored: false,
        };
  } catch {
    return {
      policy: DEFAULT_POLICY,
      diagnostics: ['policy hand-off not JSON; built-in defaults'],
      rewriteIgnored: false,
    };
  }
}

export const POLICY_HANDOFF_FORMAT = 'tiergate-claude-policy/1';

type Open = { callId: string | null; subagentType: string | null; startedAt: number };

/**
 * The copy of the session's agent folders is read again after a parent turn once it is this old, so an agent file
 * edited during a session counts from the next turn on (Claude Code itself reads them at session start in `-p` mode).
 */
export const AGENT_SNAPSHOT_MS = 10_000;

export class ModuleCore {
  policy: Policy = DEFAULT_POLICY;
  policyDiagnostics: string[] = [];
  /** Deny instead of correcting: Claude was seen ignoring a rewrite and the policy opts in (policyFromHandoff). */
  rewriteIgnored = false;
  /**
   * The policy asks (onOverCeiling / budgets.action `ask`) and someone is at this session's terminal: the PreToolUse
   * command hook decides every dispatch (it alone can raise Claude Code's permission prompt; agent.spawn fires after the
   * permission check, reference §10.3) and records it, so the module lets each spawn through unchanged. Set by init.
   */
  askArmed = false;
  sessionId: string | null = null;
  cwd: string | null = null;
  dataDir: string | null = null;
  spoolFiles = 0;
  private spoolFullReported = false;
  private seq = 0;
  private readonly open = new Map<string, Open>();
  /** Where agent definitions are looked up (the session's project dir, CLAUDE_CONFIG_DIR, HOME), set by init. */
  agentPlaces: AgentPlaces = { projectDir: null, configDir: null, home: null };
  /** Claude Code's variables that change a child's model, read through `$.env` at session start. */
  modelEnv: ClaudeModelEnv = {};
  /** The session's agent folders as last read (agent-fs-snapshot.ts); null until the first read. */
  agentSnapshot: AgentFsSnapshot | null = null;

  constructor(private readonly prices: () => PriceLookup) {}

  /** The data dir (same rule as the Node side: src/io/paths.ts), from the environment read through `$`. */
  setEnv(env: ModuleEnv): void {
    this.dataDir = paths(env).data;
  }

  handoffPath(): string | null {
    return this.dataDir && this.sessionId ? policyHandoffPath(this.dataDir, this.sessionId) : null;
  }

  /** Policy from the hand-off text (null = absent). */
  usePolicy(text: string | null): void {
    const { policy, diagnostics, rewriteIgnored } = policyFromHandoff(text);
    this.policy = policy;
    this.policyDiagnostics = diagnostics;
    this.rewriteIgnored = rewriteIgnored;
  }

  /**
   * This session's children the module saw complete, priced by its lookup, until the summary holds them. Why: Claude
   * Code 2.1.328 runs the SubagentStop command hook (which drains the module's records into the summary) before the
   * module's turn.complete has written the child's record (seen), and the parent's next agent.spawn comes right after.
   */
  private readonly ownSpend = new Map<string, RecentEntry>();

  /**
   * Whether a dispatch needs the spend read: the guard is on and the policy sets a budget or a fan-out limit (a limit's
   * message states the session's spend and the child's estimate).
   */
  needsSpend(): boolean {
    return this.policy.mode !== 'off' && (hasBudget(this.policy.budgets) || hasLimits(this.policy.limits));
  }

  /**
   * This session's children for the fan-out limits, counted here since the module sees both ends of a child in process
   * (2.1.328): a child runs from the dispatch that let it (agent.spawn; next(e) resolves once it has started, with its
   * agentId) until its turn.complete. `running` holds each child's key (its tool_use_id, else a number) until then;
   * `started` every child let run. Counted in onSpawn itself, synchronously, so spawns at once see each other. The
   * command hooks stand down while the module is live, so their count (the spend summary's) is not kept meanwhile.
   */
  private readonly running = new Set<string>();
  private readonly runningByAgent = new Map<string, string>();
  private started = 0;

  /** The data dir and the spend summary's name in it (observer/spend-summary.ts), read by index.ts through `$.fs`. */
  spendPlace(): { dir: string; name: string } | null {
    return this.dataDir ? { dir: this.dataDir, name: SPEND_FILE } : null;
  }

  spoolDir(): string | null {
    return this.dataDir ? moduleSpoolDir(this.dataDir) : null;
  }

  /** Whether the agent folders should be read again (never read, or read AGENT_SNAPSHOT_MS ago or more). */
  agentSnapshotStale(now: number): boolean {
    return (
      this.agentSnapshot === null || now - this.agentSnapshot.at >= AGENT_SNAPSHOT_MS || now < this.agentSnapshot.at
    );
  }

  /**
   * A finished child's spend-journal entry (observer/spend-journal.ts: one file in `spend.d/`, merged by whoever next
   * holds the lock), for a session whose dispatches the PreToolUse command hook decides (askArmed) under a budget: that
   * hook reads the summary and the journal, not this module's own count, and the module's records reach the ledger only
   * at the next drain. The drain's own entry for the same child has the same key, so it counts once.
   */
  journalFile(record: SpoolRecord, now: number): { path: string; text: string } | null {
    if (!this.askArmed || !this.dataDir || record.type !== 'completion' || !hasBudget(this.policy.budgets)) return null;
    const entry = spendEntry(record.observation, pricerFromLookup(this.prices(), costOf));
    if (!entry) return null;
    this.seq += 1;
    const name = `${String(now).padStart(15, '0')}-module-${String(this.seq).padStart(6, '0')}.json`;
    return { path: join(this.dataDir, SPEND_JOURNAL_DIR, name), text: JSON.stringify(entry) };
  }

  /** Path for the next record, or null when the spool is full or has no home. */
  nextSpoolPath(now: number): string | null {
    const dir = this.spoolDir();
    if (!dir || this.spoolFiles >= MODULE_SPOOL_MAX_FILES) return null;
    this.spoolFiles += 1;
    this.seq += 1;
    const rand = Math.floor(Math.random() * 0xffffffff)
      .toString(16)
      .padStart(8, '0');
    return `${dir}/${now}-${String(this.seq).padStart(6, '0')}-${rand}.json`;
  }

  /** True once, the first time a write is refused for a full spool (so the module reports it once per session). */
  spoolFullOnce(): boolean {
    if (this.spoolFiles < MODULE_SPOOL_MAX_FILES || this.spoolFullReported) return false;
    this.spoolFullReported = true;
    return true;
  }

  /**
   * agent.spawn -> proceed / correct / deny, given what Claude Code would run the child on (`child`, resolved by
   * index.ts through `$.fs`), and the spend so far when a budget is set. Any fault -> proceed (fail open) with no record.
   */
  onSpawn(e: SpawnEvent, now: number, child: ChildModel, spend?: SpendState): SpawnVerdict {
    let obs: DispatchObservation;
    let decision: Decision;
    try {
      if (this.policy.mode === 'off' || this.askArmed) return { kind: 'proceed', record: null };
      const prompt = typeof e.prompt === 'string' ? e.prompt : null;
      obs = claudeDispatch({
        sessionId: this.sessionId,
        callId: typeof e.tool_use_id === 'string' ? e.tool_use_id : null,
        parent:
          typeof e.parentModel === 'string' && e.parentModel
            ? { model: e.parentModel, source: 'agent.spawn' }
            : { model: null, source: null },
        subagentType: e.fork === true ? 'fork' : typeof e.subagentType === 'string' ? e.subagentType : null,
        prompt,
        // The module rewrites the event, not a tool input; the record keeps the fields a report needs, never the prompt.
        toolInput: {
          ...(e.model ? { model: e.model } : {}),
          ...(e.subagentType ? { subagent_type: e.subagentType } : {}),
          background: e.background === true,
        },
        cwd: this.cwd,
        at: now,
        child,
      });
      if (this.rewriteIgnored)
        obs = { ...obs, capability: { ...obs.capability, canRewrite: false, rewriteField: null } };
      const counted =
        spend && hasLimits(this.policy.limits)
          ? { ...spend, fanout: { running: this.running.size, started: this.started } }
          : spend;
      decision = decide(obs, this.policy, this.prices(), counted);
    } catch {
      return { kind: 'proceed', record: null };
    }
    const prices = this.prices();
    let detail: ReturnType<typeof decisionDetail> | null = null;
    try {
      detail = decisionDetail(obs, decision, prices, this.policy);
    } catch {
      detail = null; // the line without it reads as "estimated (dispatch not recorded)"
    }
    const record: Extract<SpoolRecord, { type: 'dispatch' }> = {
      type: 'dispatch',
      observation: obs,
      decision: {
        action: decision.action,
        reason: decision.reason,
        tier: decision.tier,
        effectiveModel: effectiveModel(obs, decision),
        catalogVersion: prices.catalogVersion,
        ...(detail ? { detail } : {}),
      },
    };
    if (decision.action === 'deny') return { kind: 'deny', message: decision.message, record };
    const running = this.countStart(obs.callId);
    if (decision.action === 'correct') {
      // agent.spawn passes any string to the API verbatim (reference §10.4): only a known alias goes out.
      if (decision.field !== 'model' || !LEGAL.has(decision.value)) {
        return {
          kind: 'proceed',
          running,
          record: {
            ...record,
            decision: {
              ...record.decision,
              action: 'allow',
              effectiveModel: obs.requestedModel ?? obs.parentModel,
              ...(detail ? { detail: undeliveredDetail(detail) } : {}),
            },
          },
        };
      }
      return { kind: 'correct', model: decision.value, record, running };
    }
    return { kind: 'proceed', record, running };
  }

  /**
   * The budgets' input: the summary as read, plus the children this module saw finish that it does not hold yet
   * (each counted once, by the ledger's key). An entry the summary holds is dropped here: it counts there from now on.
   */
  spendFrom(
    read: ReadSpend,
    now: number,
    sessionTotal: string | null,
    child: { agent: string | null; model: string | null } = { agent: null, model: null },
  ): SpendState {
    if (read.error !== null) return spendStateFrom(read, 'claude', this.sessionId, now, sessionTotal);
    let file = read.file ?? emptySpend(now);
    if (this.ownSpend.size > 0) {
      const held = new Set(file.recent.map((r) => r.k));
      for (const [k, e] of this.ownSpend) {
        if (held.has(k)) this.ownSpend.delete(k);
        else file = countCompletion(file, e, now);
      }
    }
    const state = spendStateFrom({ file, error: null }, 'claude', this.sessionId, now, sessionTotal);
    // The estimate every refusal states (issue 33 item 4), drawn as the command hooks' reservation draws it.
    state.estimate = estimateCost(file, {
      session: this.sessionId ? sessionKey('claude', this.sessionId) : null,
      agent: child.agent,
      model: child.model,
      reserve: configuredReserve(this.policy.budgets),
    });
    return state;
  }

  /** A child let run: counted as started and running until its end (onTurnComplete) or a failed start (onSpawned). */
  private countStart(callId: string | null): string {
    this.started += 1;
    const key = callId ?? `spawn-${this.started}`;
    if (this.running.size >= MAX_OPEN) this.running.delete(this.running.values().next().value as string);
    this.running.add(key);
    return key;
  }

  /** The child with this key no longer runs. */
  private countEnd(key: string | undefined): void {
    if (key !== undefined) this.running.delete(key);
  }

  /**
   * next(e) at agent.spawn resolved with the child's agentId: remember it for the completion join and the count. No
   * agentId: no child started, so it runs no more.
   */
  onSpawned(agentId: unknown, callId: string | null, subagentType: string | null, now: number, running?: string): void {
    if (typeof agentId !== 'string' || !agentId) return this.countEnd(running);
    if (running !== undefined) {
      if (this.runningByAgent.size >= MAX_OPEN)
        this.runningByAgent.delete(this.runningByAgent.keys().next().value as string);
      this.runningByAgent.set(agentId, running);
    }
    if (this.open.size >= MAX_OPEN) this.open.delete(this.open.keys().next().value as string);
    this.open.set(agentId, { callId, subagentType, startedAt: now });
  }

  /** turn.complete of a child (it carries agentId; the main loop's does not) -> a completion record. */
  onTurnComplete(e: TurnCompleteEvent, now: number): SpoolRecord | null {
    try {
      if (typeof e.agentId !== 'string' || !e.agentId) return null;
      this.countEnd(this.runningByAgent.get(e.agentId));
      const open = this.open.get(e.agentId);
      const u = e.usage && typeof e.usage === 'object' ? e.usage : null;
      const status: CompletionObservation['status'] =
        e.isAborted || e.reason === 'aborted'
          ? 'cancelled'
          : e.reason === 'error' || e.reason === 'refusal'
            ? 'error'
            : e.reason === 'answer'
              ? 'ok'
              : 'unknown';
      const observation: CompletionObservation = {
        kind: 'completion',
        harness: 'claude',
        sessionId: this.sessionId,
        callId: open?.callId ?? null,
        agentId: e.agentId,
        subagentType: open?.subagentType ?? null,
        servedModel: u && typeof u.model === 'string' && u.model ? u.model : null,
        usage: u ? claudeUsage(u as Record<string, unknown>) : null,
        status,
        outcome: extractOutcome(typeof e.answer === 'string' ? e.answer : null),
        startedAt: open?.startedAt ?? null,
        endedAt: now,
        usageSource: 'module',
        // A continued agent (SendMessage) completes again under the same agentId: the turn id keeps rows apart.
        dedupeKey: typeof e.turnId === 'string' ? `claude-turn:${e.turnId}` : null,
      };
      if (hasBudget(this.policy.budgets)) this.countOwn(observation);
      return { type: 'completion', observation, transcriptPath: null };
    } catch {
      return null;
    }
  }

  private countOwn(observation: CompletionObservation): void {
    try {
      const entry = spendEntry(observation, pricerFromLookup(this.prices(), costOf));
      if (!entry) return;
      this.ownSpend.delete(entry.k);
      this.ownSpend.set(entry.k, entry);
      if (this.ownSpend.size > MAX_RECENT) this.ownSpend.delete(this.ownSpend.keys().next().value as string);
    } catch {
      /* counted by the drain instead */
    }
  }
}

export function spoolFileText(
  body:
    | { record: SpoolRecord }
    | { diagnostic: { level: 'error' | 'warn' | 'info'; where: string; message: string; at: number } },
): string {
  return JSON.stringify({ format: MODULE_SPOOL_FORMAT, ...body });
}

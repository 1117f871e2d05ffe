/**
 * Claude Code command hooks (`node dist/hook.cjs claude <event>`): the fallback for builds or sessions where the hooks
 * module did not load, plus the completion side (spool drain) the module cannot do itself.
 *
 * When the module announced itself (TIERGATE_MODULE_LIVE=1, set in classic.SessionStart, seen on 2.1.328) the
 * dispatch-side handlers stand down, so each dispatch is decided exactly once.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { jsonAnswer, type CommandAdapter, type HookHandler, type HookServices } from '../../contracts/hook.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import { removeFile, writeFileAtomic } from '../../io/files.js';
import { paths } from '../../io/paths.js';
import { POLICY_HANDOFF_FORMAT, policyHandoffPath } from './module/core.js';
import { spoolRecord } from '../../observer/spend-record.js';
import { extractOutcome } from '../../observer/outcome.js';
import type { CompletionObservation } from '../../contracts/observation.js';
import { withoutSecrets } from '../../contracts/secrets.js';
import { loadPolicy } from '../../config/load.js';
import { readRewriteMarker } from '../../observer/rewrite-marker.js';
import { sessionStartAnswer } from './answer.js';
import { MODULE_LIVE_VAR, moduleLive, preToolUse } from './dispatch-command.js';
import { SessionPayload, SubagentStopPayload } from './payloads.js';
import { parseClaudeTranscript, readAgentMeta } from './transcript.js';
import { drainModuleSpool } from './module-spool.js';
import { standAsideForGrok } from './grok-guard.js';
import { policySummary } from './policy-text.js';

export { MODULE_LIVE_VAR };

/**
 * SubagentStop: the child's served model and usage from its own transcript (awaited briefly, see below), joined to the
 * dispatch by the sidecar's toolUseId. With the module live, the module's turn.complete records it instead.
 */
const subagentStop: HookHandler = async (payload, ctx) => {
  const p = SubagentStopPayload.parse(payload);
  if (moduleLive(ctx)) {
    drainModuleSpool(ctx.env);
    return null;
  }
  const path = p.agent_transcript_path ?? null;
  const { policy } = loadPolicy(ctx.env, p.cwd ?? null);
  let parsed = path ? safeParse(path, policy.observer.tailBytes) : null;
  // Claude Code can run SubagentStop before the child's transcript file exists or is complete (seen on 2.1.328 once the
  // hook started in ~25 ms instead of ~35 ms; the reference had it flushed by then): look again briefly. Bounded well
  // inside the deadline; a child still not complete is spooled as pending and the drain's late-flush pass fills it in.
  // A missing file is worth waiting for only where Claude Code keeps transcripts (its directory is there).
  const unfinished = () => (parsed?.child ? !parsed.child.complete : existsSync(dirname(path!)));
  for (let waited = 0; path && unfinished() && waited < FLUSH_WAIT_MS; waited += FLUSH_POLL_MS) {
    await new Promise((r) => setTimeout(r, FLUSH_POLL_MS));
    parsed = safeParse(path, policy.observer.tailBytes);
  }
  const child = parsed?.child ?? null;
  const meta = path ? readAgentMeta(path) : null;
  const observation: CompletionObservation = {
    kind: 'completion',
    harness: 'claude',
    sessionId: p.session_id ?? null,
    callId: child?.callId ?? meta?.toolUseId ?? null,
    agentId: p.agent_id ?? child?.agentId ?? null,
    subagentType: p.agent_type || child?.subagentType || null,
    servedModel: child?.servedModel ?? null,
    usage: child?.usage ?? null,
    status: child ? (child.complete ? 'ok' : 'pending') : 'pending',
    // The hook payload's last message is the child's final text: only its outcome tokens are kept.
    outcome: extractOutcome(p.last_assistant_message ?? null),
    startedAt: child?.startedAt ?? null,
    endedAt: Date.now(),
    usageSource: child?.usage ? 'transcript-tail' : 'none',
    dedupeKey: p.agent_id ? `claude-agent:${p.agent_id}` : null,
  };
  // Spooled and counted in the budgets' spend summary, so the parent's next dispatch sees this child's cost.
  spoolRecord({ type: 'completion', observation, transcriptPath: path }, ctx.env, { cwd: p.cwd ?? null });
  return null;
};

const FLUSH_WAIT_MS = 500;
const FLUSH_POLL_MS = 25;

function safeParse(path: string, maxBytes: number) {
  try {
    return parseClaudeTranscript(path, { maxBytes });
  } catch {
    return null;
  }
}

/**
 * SessionStart: the policy in a few lines as additionalContext, so the model picks a legal model up front; the
 * module's policy hand-off; the background price refresh.
 */
const sessionStart: HookHandler = async (payload, ctx) => {
  const p = SessionPayload.parse(payload);
  const { policy, diagnostics } = loadPolicy(ctx.env, p.cwd ?? null);
  for (const d of diagnostics) diagnose('warn', 'claude:SessionStart', d, {}, ctx.env);
  if (moduleLive(ctx) && p.session_id) {
    try {
      // The marker is read only when the policy asks for it (onIgnoredRewrite: deny), as on the command-hook path.
      const rewriteIgnored = policy.onIgnoredRewrite === 'deny' && readRewriteMarker(ctx.env, 'claude') !== null;
      writeFileAtomic(
        policyHandoffPath(paths(ctx.env).data, p.session_id),
        JSON.stringify({ format: POLICY_HANDOFF_FORMAT, policy: withoutSecrets(policy), rewriteIgnored }),
      );
    } catch (err) {
      diagnose('error', 'claude:SessionStart', `policy hand-off: ${errorText(err)}`, {}, ctx.env);
    }
  }
  // Background price refresh: returns at once (detached process, lock, TTL); never on the dispatch path. Imported
  // here, not at the top: child_process and crypto would otherwise load in every PreToolUse hook process.
  (await import('../../refresh/trigger.js')).triggerRefresh(ctx.env);
  const text = policySummary(policy);
  return text ? jsonAnswer(sessionStartAnswer(text)) : null;
};

/**
 * SessionEnd: move the module's records into the spool, drain the spool into the ledger (bounded), start the team push.
 * The drain and the push are the wiring's services (src/wiring/command-hooks.ts): SQLite and the drain load only there,
 * never in a dispatch hook, and they read the harness registry, which lists this adapter.
 */
const sessionEnd =
  (services: HookServices): HookHandler =>
  async (payload, ctx) => {
    const p = SessionPayload.parse(payload);
    drainModuleSpool(ctx.env);
    await services.observe(ctx.env, null, ctx);
    // The team ledger's push, when team.url is set: a detached process (its own lock and watchdog); returns at once.
    await services.push(ctx.env);
    if (p.session_id) removeFile(policyHandoffPath(paths(ctx.env).data, p.session_id));
    return null;
  };

/** The registry's command adapter (index.ts): every Claude Code event. */
export const createCommandAdapter = (services: HookServices): CommandAdapter => ({
  handlers: {
    PreToolUse: preToolUse,
    // Grok Build runs Claude hooks too (grok-guard.ts): each one stands aside there.
    SubagentStop: standAsideForGrok(subagentStop),
    SessionStart: standAsideForGrok(sessionStart),
    SessionEnd: standAsideForGrok(sessionEnd(services)),
  },
});

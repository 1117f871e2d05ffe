/**
 * GitHub Copilot CLI command hooks: `node dist/hook.cjs copilot <event>` (manifest: hooks-copilot.json, named by the
 * plugin's .plugin/plugin.json). Dispatch (preToolUse on `task`) is decided by dispatch-command.ts; the child's
 * completion is read from the session file at subagentStop and spooled as pending (Copilot writes the child's
 * `subagent.completed` only after that hook, seen on 1.0.102), and the drain at sessionEnd, or at the next run of any
 * tiergate command, settles it from the file (late flush, collect/drain.ts). Nothing here waits on the network.
 *
 * Copilot CLI 1.0.102 takes a hook's exit 1 as a denial (seen): every failure here is the runner's fail-open (no
 * output, exit 0), whatever the event.
 */
import { existsSync, statSync } from 'node:fs';
import type { CompletionObservation } from '../../contracts/observation.js';
import type { Env } from '../../contracts/env.js';
import type { CommandAdapter, HookHandler, HookServices } from '../../contracts/hook.js';
import { loadPolicy } from '../../config/load.js';
import { diagnose, errorText } from '../../io/diagnostics.js';
import { extractOutcome } from '../../observer/outcome.js';
import { spoolRecord } from '../../observer/spend-record.js';
import { preToolUse } from './dispatch-command.js';
import { copilotHome, eventsPath } from './events.js';
import { SessionPayloadSchema, SubagentStopPayloadSchema, type SubagentStopPayload } from './payloads.js';
import { learnFromFile } from './multipliers.js';
import { parseCopilotEvents, type CopilotParse } from './transcript.js';

/** The session file of a subagentStop: the payload's transcriptPath (seen), else the one under COPILOT_HOME. */
function sessionFile(p: SubagentStopPayload, env: Env): string | null {
  if (p.transcriptPath) return p.transcriptPath;
  const home = copilotHome(env);
  return home ? eventsPath(home, p.sessionId) : null;
}

/** The last `tailBytes` of a session file, parsed (bounded, read once); null when it cannot be read. */
function readTail(path: string, tailBytes: number, where: string): CopilotParse | null {
  try {
    const size = statSync(path).size;
    return parseCopilotEvents(path, { startOffset: Math.max(0, size - tailBytes), maxBytes: tailBytes });
  } catch (err) {
    diagnose('warn', where, `session file not read: ${errorText(err)}`, { path });
    return null;
  }
}

export function createCommandAdapter(services: HookServices): CommandAdapter {
  const subagentStop: HookHandler = (payload, ctx) => {
    const p = SubagentStopPayloadSchema.parse(payload);
    const { policy } = loadPolicy(ctx.env, p.cwd ?? null);
    const path = sessionFile(p, ctx.env);
    const parse = path ? readTail(path, policy.observer.tailBytes, 'copilot:subagentStop') : null;
    const child = parse?.children.find((c) => c.agentId === p.agentId) ?? null;
    const observation: CompletionObservation = {
      kind: 'completion',
      harness: 'copilot',
      sessionId: p.sessionId,
      callId: child?.callId ?? null,
      agentId: p.agentId,
      subagentType: p.agentType || child?.subagentType || null,
      servedModel: child?.servedModel ?? null,
      usage: child?.usage ?? null,
      // Complete once the file says so: never at subagentStop on 1.0.102 (subagent.completed is written after it).
      status: child?.complete && child.usage ? 'ok' : 'pending',
      // The child's last message: only its outcome tokens are kept.
      outcome: extractOutcome(p.response ?? null),
      startedAt: child?.startedAt ?? null,
      endedAt: Date.now(),
      usageSource: child?.usage ? 'transcript-tail' : 'none',
      dedupeKey: `copilot-agent:${p.agentId}`,
      ...(child?.multiplier != null ? { multiplier: child.multiplier } : {}),
    };
    spoolRecord({ type: 'completion', observation, transcriptPath: path }, ctx.env, { cwd: p.cwd ?? null });
    learnFromFile(parse, ctx.env);
    return null;
  };

  return {
    handlers: {
      preToolUse,
      subagentStop,
      async sessionStart(payload, ctx) {
        SessionPayloadSchema.parse(payload);
        // Background price refresh: returns at once (detached process, lock, TTL). Imported here: child_process and
        // crypto would otherwise load in every hook process.
        (await import('../../refresh/trigger.js')).triggerRefresh(ctx.env);
        return null;
      },
      // The drain settles the children this session left pending from its file, bounded by the hook's deadline; what
      // is not complete yet (the file lags) waits for the next drain.
      async sessionEnd(payload, ctx) {
        const p = SessionPayloadSchema.parse(payload);
        const home = copilotHome(ctx.env);
        const file = home ? eventsPath(home, p.sessionId) : null;
        if (file && existsSync(file))
          learnFromFile(
            readTail(file, loadPolicy(ctx.env, p.cwd ?? null).policy.observer.tailBytes, 'copilot:sessionEnd'),
            ctx.env,
          );
        await services.observe(ctx.env, p.cwd ?? null, ctx);
        await services.push(ctx.env);
        return null;
      },
    },
  };
}

/**
 * `budgets.action: "stop"` in OpenCode's child sessions (issue 33). OpenCode 1.18.33 runs a child as a session of its
 * own in the same process, and the plugin's `event` callback sees it: `session.created` names its `parentID`, each
 * `message.updated` of an assistant message carries its tokens and cost (opencode.md §4, seen). So a child's spend
 * so far is kept in memory, per message (the last figure of a message replaces its earlier ones): no file is read.
 * A tool call in a child (`tool.execute.before` with the child's sessionID) past a budget is then refused. But 1.18.33
 * reports a step's usage only after the step's tool calls have run (the AI SDK holds the step's finish until its tool
 * results are in, seen: the tool call of the response that crosses a budget was allowed), so the check that holds is
 * at the child's next model request: `chat.params` throws, the request is not made, and the child ends with the
 * message, which its parent reads as the task's result (seen). That costs the child's answer, never a request.
 */
import { isRecord } from '../../contracts/record.js';
import type { Env } from '../../io/paths.js';
import { costOf } from '../../prices/cost.js';
import { numberToDecimal, parseDecimal } from '../../prices/decimal.js';
import { loadRuntime } from '../../config/runtime.js';
import { pricerFromLookup } from '../../observer/pricing.js';
import type { SpendFigure } from '../../routing-engine/budget.js';
import { overBudgetMessage, recordStopOnce, stopsChildren } from '../../runtime/child-stop.js';
import { usageFromTokens } from './complete.js';

const MAX_CHILDREN = 512;
const MAX_MESSAGES = 256;
const ATTO_PER_PICO = 1_000_000n;

/** `agent`: the child session's agent (session.created's info.agent, seen on 1.18.33); `stopped`: its stop spooled. */
type Child = { parent: string; agent: string | null; messages: Map<string, bigint | null>; stopped?: boolean };

export class OpencodeChildSpend {
  private readonly children = new Map<string, Child>();

  /** One `event` callback's event: a child session created, or an assistant message of a child updated. */
  onEvent(event: unknown, env: Env, cwd: string | null): void {
    if (!isRecord(event) || !isRecord(event.properties)) return;
    const info = event.properties.info;
    if (!isRecord(info)) return;
    if (event.type === 'session.created') {
      if (typeof info.id !== 'string' || typeof info.parentID !== 'string' || !info.parentID) return;
      if (this.children.size >= MAX_CHILDREN) this.children.delete(this.children.keys().next().value as string);
      const agent = typeof info.agent === 'string' && info.agent ? info.agent : null;
      this.children.set(info.id, { parent: info.parentID, agent, messages: new Map() });
      return;
    }
    if (event.type !== 'message.updated' || info.role !== 'assistant' || typeof info.id !== 'string') return;
    const child = typeof info.sessionID === 'string' ? this.children.get(info.sessionID) : undefined;
    if (!child) return;
    const usage = usageFromTokens(info.tokens);
    // A message is updated from its start (zero tokens) to its end: nothing is counted until it reports some.
    if (!usage || usage.input + usage.output + usage.cacheRead === 0) return;
    const model =
      typeof info.modelID === 'string'
        ? typeof info.providerID === 'string'
          ? `${info.providerID}/${info.modelID}`
          : info.modelID
        : null;
    let pico = pricerFromLookup(loadRuntime(env, cwd).prices, costOf).price(model, 'opencode', usage)?.picoUsd ?? null;
    if (pico === null && typeof info.cost === 'number') {
      const d = numberToDecimal(info.cost);
      if (d !== null && d !== '0') pico = parseDecimal(d) / ATTO_PER_PICO;
    }
    child.messages.delete(info.id);
    child.messages.set(info.id, pico);
    if (child.messages.size > MAX_MESSAGES) child.messages.delete(child.messages.keys().next().value as string);
  }

  /** The root session a child session belongs to (children of children included); null: not a child seen here. */
  private root(session: string): string | null {
    let at = this.children.get(session);
    if (!at) return null;
    for (let hops = 0; hops < 16; hops++) {
      const up = this.children.get(at.parent);
      if (!up) return at.parent;
      at = up;
    }
    return at.parent;
  }

  spent(session: string): SpendFigure {
    const f = { pico: 0n, unknown: 0 };
    for (const p of this.children.get(session)?.messages.values() ?? []) {
      if (p === null) f.unknown += 1;
      else f.pico += p;
    }
    return f;
  }

  /**
   * The deny message for a tool call in `session` when it is a child past a budget, the first one spooling the child's
   * stop (once per child session); null otherwise. Throws on a fault.
   */
  stopMessage(
    session: unknown,
    env: Env,
    cwd: string | null,
    now: number,
    at: 'tool-call' | 'request' = 'tool-call',
  ): string | null {
    if (typeof session !== 'string') return null;
    const root = this.root(session);
    if (root === null) return null;
    const policy = loadRuntime(env, cwd).policy;
    if (!stopsChildren(policy)) return null;
    const child = this.children.get(session)!;
    const who = { harness: 'opencode' as const, sessionId: root, agent: child.agent };
    const message = overBudgetMessage(policy, env, who, this.spent(session), now, at);
    if (message !== null)
      recordStopOnce(env, who, session, cwd, now, () => {
        const first = !child.stopped;
        child.stopped = true;
        return first;
      });
    return message;
  }
}

/**
 * `budgets.action: "stop"` in a pi child process (issue 33). pi 0.73.1 runs each child as its own `pi` process, which
 * loads tiergate's extension when it is installed globally (pi.md §6). The child sees its own assistant messages
 * (`message_end`, before the `tool_call` of the tools they ask for, seen), so its spend so far is kept in memory: no
 * file is read. The parent's session id reaches the child through the environment the parent's extension sets before
 * a dispatch (a `--no-session` child has no link to its parent otherwise, seen), so a session budget counts both.
 */
import { isRecord } from '../../contracts/record.js';
import type { Env } from '../../io/paths.js';
import { costOf } from '../../prices/cost.js';
import { numberToDecimal, parseDecimal } from '../../prices/decimal.js';
import { loadRuntime } from '../../config/runtime.js';
import { pricerFromLookup } from '../../observer/pricing.js';
import type { SpendFigure } from '../../routing-engine/budget.js';
import { overBudgetMessage, recordStopOnce, stopsChildren } from '../../runtime/child-stop.js';
import { piUsage } from './observe.js';

/** Set by a parent pi's extension to its session id; read by the child's. */
export const PARENT_SESSION_VAR = 'TIERGATE_PI_PARENT_SESSION';

const ATTO_PER_PICO = 1_000_000n;

/**
 * The agent a pi child process runs as, from its own argv: pi's example `subagent` tool (0.73.1 and 1.6.0, source and
 * seen) writes the agent's system prompt to `<tmp>/pi-subagent-XXXX/prompt-<agent>.md` and passes it as
 * `--append-system-prompt <file>`; no variable or flag names the agent otherwise. The name is the example's file-safe
 * form (`[^\w.-]+` as `_`), which is the agent's name for every name made of those characters. null: no such flag (an
 * agent without a system prompt, tiergate's own tier tool, another tool), or a value that is not such a file.
 */
export function piChildAgent(argv: readonly string[]): string | null {
  const at = argv.lastIndexOf('--append-system-prompt');
  const value = at >= 0 ? argv[at + 1] : undefined;
  if (!value) return null;
  const file = value.slice(Math.max(value.lastIndexOf('/'), value.lastIndexOf('\\')) + 1);
  const m = /^prompt-(.+)\.md$/.exec(file);
  return m ? m[1]! : null;
}

/** What this child process has spent so far, from its own `message_end` events. */
export class PiChildSpend {
  private figure: SpendFigure = { pico: 0n, unknown: 0 };
  private readonly seen = new Set<string>();

  /** `agent`: the agent this child runs as (piChildAgent), null when its argv does not tell. */
  constructor(private readonly agent: string | null = null) {}

  get spent(): SpendFigure {
    return this.figure;
  }

  /** One `message_end`: an assistant message's usage priced by tiergate, else pi's own cost figure, else unpriced. */
  add(event: unknown, env: Env, cwd: string | null): void {
    const m = isRecord(event) && isRecord(event.message) ? event.message : null;
    if (!m || m.role !== 'assistant' || !isRecord(m.usage)) return;
    const id = typeof m.responseId === 'string' ? m.responseId : null;
    if (id !== null) {
      if (this.seen.has(id)) return;
      this.seen.add(id);
    }
    const usage = piUsage(m.usage);
    const model =
      typeof m.model === 'string' ? (typeof m.provider === 'string' ? `${m.provider}/${m.model}` : m.model) : null;
    const priced = usage ? pricerFromLookup(loadRuntime(env, cwd).prices, costOf).price(model, 'pi', usage) : null;
    let pico = priced?.picoUsd ?? null;
    if (pico === null) {
      const own = isRecord(m.usage.cost) ? numberToDecimal(m.usage.cost.total as number) : null;
      if (own !== null && own !== '0') pico = parseDecimal(own) / ATTO_PER_PICO;
    }
    this.figure =
      pico === null
        ? { pico: this.figure.pico, unknown: this.figure.unknown + 1 }
        : { pico: this.figure.pico + pico, unknown: this.figure.unknown };
  }

  /** Whether this child's stop was spooled: a child process is one child, so once per process. */
  private recorded = false;

  /**
   * The deny message for this child's next tool call, or null; the first one spools the child's stop (`childId`: the
   * child's own session id, else its process). Throws on a fault (the caller fails open).
   */
  stopMessage(env: Env, cwd: string | null, now: number, childId: string | null = null): string | null {
    const policy = loadRuntime(env, cwd).policy;
    if (!stopsChildren(policy)) return null;
    // The agent from the child's argv (piChildAgent): the stop message's estimate is this agent's median, and the
    // stopped record names it; null (no agent estimate, none named) where the argv does not tell.
    const who = { harness: 'pi' as const, sessionId: env[PARENT_SESSION_VAR] || null, agent: this.agent };
    const message = overBudgetMessage(policy, env, who, this.figure, now);
    if (message !== null)
      recordStopOnce(env, who, childId ?? `pid-${process.pid}-${now}`, cwd, now, () => {
        const first = !this.recorded;
        this.recorded = true;
        return first;
      });
    return message;
  }
}

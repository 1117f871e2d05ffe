/**
 * The whole session's cost as an in-process harness reports it, for `budgets.sessionTotal` (routing-engine/budget.ts):
 * pi's session entries and OpenCode's sessions carry a USD cost per message or session. Figures are JSON numbers; they
 * are summed exactly (each turned into the decimal its author wrote, then added in fixed point), never as floats.
 * Read only when a sessionTotal budget is set.
 */
import { formatFixed, numberToDecimal, parseDecimal } from '../../prices/decimal.js';

/** Most entries a pi session is summed over (newest kept): a runaway session still costs one bounded pass. */
export const MAX_ENTRIES = 50_000;

/** Exact USD total of the finite, non-negative numbers among `values`; null when there is none. */
export function usdTotal(values: Iterable<unknown>): string | null {
  let sum = 0n;
  let any = false;
  for (const v of values) {
    if (typeof v !== 'number') continue;
    const d = numberToDecimal(v);
    if (d === null) continue;
    sum += parseDecimal(d);
    any = true;
  }
  return any ? formatFixed(sum) : null;
}

const obj = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * pi 0.73.1 (pi.md §6, seen): `ctx.sessionManager.getEntries()` holds `{type: "message", message}` entries; an assistant
 * message's `usage.cost.total` is its cost in USD, and a subagent tool's result reports its children's
 * (`details.results[].usage.cost`, pi's example tool): children run as separate pi processes without a session, so
 * their cost is only in the parent's session through those results.
 */
export function piSessionCost(ctx: unknown): string | null {
  const sm = obj(obj(ctx)?.sessionManager);
  const get = sm?.getEntries;
  if (typeof get !== 'function') return null;
  let entries: unknown;
  try {
    entries = (get as () => unknown).call(sm);
  } catch {
    return null;
  }
  if (!Array.isArray(entries)) return null;
  const costs: unknown[] = [];
  for (const e of entries.slice(-MAX_ENTRIES)) {
    const m = obj(obj(e)?.message);
    if (!m) continue;
    if (m.role === 'assistant') costs.push(obj(obj(m.usage)?.cost)?.total);
    const results = obj(m.details)?.results;
    if (Array.isArray(results)) for (const r of results) costs.push(obj(obj(r)?.usage)?.cost);
  }
  return usdTotal(costs);
}

/** OpenCode 1.18.33 (opencode.md §5, seen): `client.session.get` answers a session with its own `cost` in USD. */
export const opencodeSessionCost = (session: unknown): number | null => {
  const c = obj(session)?.cost;
  return typeof c === 'number' && Number.isFinite(c) && c >= 0 ? c : null;
};

/**
 * OpenCode's child sessions are sessions of their own: the parent's `cost` leaves them out. Their costs, as OpenCode
 * reported them when each child finished (tool.execute.after), per parent session; bounded, oldest session dropped.
 */
export class ChildSessionCosts {
  private readonly byParent = new Map<string, Map<string, number>>();
  constructor(
    private readonly maxSessions = 256,
    private readonly maxChildren = 4096,
  ) {}

  add(parent: string | null, child: string | null, cost: number | null): void {
    if (!parent || !child || cost === null) return;
    let m = this.byParent.get(parent);
    if (!m) {
      if (this.byParent.size >= this.maxSessions) this.byParent.delete(this.byParent.keys().next().value as string);
      this.byParent.set(parent, (m = new Map()));
    }
    if (m.size < this.maxChildren || m.has(child)) m.set(child, cost);
  }

  costs(parent: string): number[] {
    return [...(this.byParent.get(parent)?.values() ?? [])];
  }
}

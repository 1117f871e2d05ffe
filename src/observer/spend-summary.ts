/**
 * The spend summary: a small JSON file beside the ledger with the subagent spend of the current local day and month
 * and of recent harness sessions, so a dispatch checks its budgets in one bounded read and never opens SQLite.
 *
 * Written only under its lock (spend-record.ts): when a completion is spooled (priced then, by the lookup in effect)
 * and after every observer pass (rebuilt from the ledger, which is authoritative: repricing, late flushes, scans).
 * Each period carries its bounds in epoch ms, worked out by the writer in the user's time zone (Date's local time,
 * TZ honoured), so the reader needs no zone: a summary whose day has ended counts nothing for today.
 *
 * Every figure is pico-USD as a decimal string (no float) plus a count of children recorded without a price.
 * This module is on the dispatch path, and in Claude Code's hooks module (which reads the file through `$.fs`): no
 * file access, pricing, SQLite or crypto here; spend-read.ts reads it in Node.
 */
import type { Harness } from '../contracts/harness.js';
import { paths, type Env, joinPath } from '../io/paths.js';
import { parseDecimal } from '../prices/decimal.js';
import type { AskBasis, SpendFigure, SpendState } from '../routing-engine/budget.js';

export const SPEND_FORMAT = 'tiergate-spend/1';
export const SPEND_FILE = 'spend.json';
/** The completions not merged into the summary yet, one file each (spend-journal.ts). */
export const SPEND_JOURNAL_DIR = 'spend.d';
/** Far above what the caps below write (~20 KB); anything bigger is not ours. */
export const SPEND_MAX_BYTES = 256 * 1024;
/** Sessions kept, most recently active first. A session pushed out counts from $0 again: 64 is far above a user's live ones. */
export const MAX_SESSIONS = 64;
/** Completions remembered by key, newest first, so one reported twice (hook and module, a late flush) counts once. */
export const MAX_RECENT = 128;
/**
 * How long a reservation holds when no completion settles it (a child killed, a harness that reports no completion):
 * the longest plausible subagent run. Longer would hold a dead child's estimate against the budget all afternoon.
 */
export const RESERVATION_TTL_MS = 2 * 3600 * 1000;
/** Reservations kept, newest last: far above the children one user runs at once; the oldest go first. */
export const MAX_RESERVED = 512;

export type Period = { start: number; end: number; pico: string; unknown: number };
/** `corrected`: dispatches of the session tiergate corrected, as the ledger held them when the summary was rebuilt. */
export type SessionSpend = { pico: string; unknown: number; last: number; corrected?: number };
/**
 * A completion counted: its ledger key, the session it counts for, when it ended, its cost (null: unpriced), and what
 * a reservation's estimate is drawn from: its call id (settles that dispatch's reservation), served model and agent type.
 */
export type RecentEntry = {
  k: string;
  s: string | null;
  at: number;
  pico: string | null;
  c?: string | null;
  m?: string | null;
  a?: string | null;
};

/**
 * A dispatch's expected cost, held against the budgets from the dispatch (under the lock that read the spend) until its
 * completion settles it or `until` passes. `c`: the dispatch's call id; `s`: its session; `at`: when it was made (the
 * day and month it counts in); `unknown`: no estimate could be made (counted like an unpriced child).
 */
export type Reservation = {
  c: string | null;
  s: string | null;
  at: number;
  until: number;
  pico: string;
  unknown?: 1;
  /** The dispatch's harness, so a completion that reaches only the ledger (a drain) settles it by call id. */
  h?: string;
};

export type SpendFile = {
  format: typeof SPEND_FORMAT;
  updatedAt: number;
  /** The zone the periods were cut in, for display (`tiergate budget`). */
  zone: string | null;
  day: Period;
  month: Period;
  sessions: Record<string, SessionSpend>;
  recent: RecentEntry[];
  /** Running children's expected costs (absent in a summary written before reservations). */
  reserved?: Reservation[];
  /**
   * Children started per session (the fan-out limit `subagentsPerSession`), counted by the dispatch that let each run,
   * under the lock. Not in the ledger's rebuild: carried over by it (spend-record.ts). Absent before limits.
   */
  started?: Record<string, StartedCount>;
  /**
   * The generation of held reservation lines (spend-held.ts) this summary has not taken in yet: readers count those
   * lines with it, a fold writes it one higher. Absent: 0.
   */
  heldGen?: number;
  /**
   * Set only on a dispatch's view of the summary (readDigest): what its estimates are drawn from, in place of `recent`
   * (empty there), and one session's figures in place of every session's. A view is never written (writeFold refuses it).
   */
  basis?: EstimateBasis;
  /**
   * Set only on a dispatch's view (readDigest), whose `reserved` is then empty: the reservations of the summary summed
   * by its writer, as spendStateFrom counts them at a time the view holds for (all live, in the summary's own day and
   * month): this session's (cost, unpriced, how many), the day's and the month's.
   */
  reservedSum?: ReservedSum;
};

/** The summary's reservations summed (SpendFile.reservedSum): [pico, unknown] a figure, the session's with its count. */
export type ReservedSum = {
  /** The view's session (its key) and its reservations; null: the view is for no session, or it holds none. */
  session: [key: string, pico: string, unknown: number, n: number] | null;
  day: [pico: string, unknown: number];
  month: [pico: string, unknown: number];
};

/**
 * What the estimates (estimateCost, askBasis) are drawn from, worked out from `recent` once by the summary's writer:
 * per agent type and over every child, the lower-median priced child (its cost, its model, how many); per model, the
 * lower-median cost; for the one session viewed (`session`, its key), the sum and count of its priced children and its
 * lower-median child.
 */
export type EstimateBasis = {
  agents: Record<string, MedianChild>;
  models: Record<string, string>;
  all: string | null;
  session: { key: string; sum: string; n: number; mid: MedianChild } | null;
};
/** A lower-median priced child: its cost (pico-USD), the model it was served by, and how many children it is drawn from. */
export type MedianChild = [pico: string, model: string | null, n: number];

export type StartedCount = { n: number; last: number };

export const spendPath = (env: Env): string => joinPath(paths(env).data, SPEND_FILE);
export const sessionKey = (harness: Harness | string, sessionId: string): string => `${harness}:${sessionId}`;

/** The local calendar day and month holding `t` (Date's local time: the TZ variable, else the system zone). */
export function periodsAt(t: number): { day: { start: number; end: number }; month: { start: number; end: number } } {
  const d = new Date(t);
  const y = d.getFullYear();
  const m = d.getMonth();
  const day = d.getDate();
  // new Date(y, m, d) is local midnight, DST included (a 23- or 25-hour day has the bounds it really has).
  return {
    day: { start: new Date(y, m, day).getTime(), end: new Date(y, m, day + 1).getTime() },
    month: { start: new Date(y, m, 1).getTime(), end: new Date(y, m + 1, 1).getTime() },
  };
}

/**
 * The day and month holding `now`: the file's own while they do (its writer cut them in the user's zone), else worked out
 * here. The file's bounds spare a dispatch hook the zone's rules (Node reads /etc/localtime at the first local date).
 */
export function boundsAt(
  f: Pick<SpendFile, 'day' | 'month'>,
  now: number,
): { day: { start: number; end: number }; month: { start: number; end: number } } {
  const ok = (p: Period) => now >= p.start && now < p.end;
  if (ok(f.day) && ok(f.month)) return { day: f.day, month: f.month };
  const p = periodsAt(now);
  return { day: ok(f.day) ? f.day : p.day, month: ok(f.month) ? f.month : p.month };
}

export function emptySpend(now: number, zone: string | null = null): SpendFile {
  const p = periodsAt(now);
  return {
    format: SPEND_FORMAT,
    updatedAt: now,
    zone,
    day: { ...p.day, pico: '0', unknown: 0 },
    month: { ...p.month, pico: '0', unknown: 0 },
    sessions: {},
    recent: [],
  };
}

export const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
// Digits by hand, not a pattern: a pattern's first use costs a dispatch hook ~0.05 ms (bench/README.md, "Session 4").
export const isPico = (v: unknown): v is string => {
  if (typeof v !== 'string' || v.length === 0 || v.length > 40) return false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
};
export const isPeriod = (v: unknown): v is Period => {
  const p = v as Period;
  return (
    !!p &&
    typeof p === 'object' &&
    isInt(p.start) &&
    isInt(p.end) &&
    isPico(p.pico) &&
    isInt(p.unknown) &&
    p.unknown >= 0
  );
};

const isStarted = (v: unknown): boolean =>
  !!v &&
  typeof v === 'object' &&
  Object.values(v).every((c: StartedCount) => !!c && typeof c === 'object' && isInt(c.n) && c.n >= 0 && isInt(c.last));

/** A reservation as read back (the summary's, a held line's: spend-held.ts). Checked by hand, as the file is. */
export const isReservation = (v: unknown): v is Reservation => {
  const r = v as Reservation;
  return !!r && typeof r === 'object' && isInt(r.at) && isInt(r.until) && isPico(r.pico);
};

/** The parsed file, or a reason it is not one. Checked by hand: a dispatch hook does not load zod. */
export function parseSpend(text: string): SpendFile | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'spend summary is not JSON';
  }
  const f = v as SpendFile;
  if (!f || typeof f !== 'object' || f.format !== SPEND_FORMAT) return 'spend summary has an unknown format';
  // A writer's digest (spend-digest.ts) is for dispatches; a reader of the whole file has no use for it.
  if ('digest' in f) delete (f as { digest?: unknown }).digest;
  if ('digestSessions' in f) delete (f as { digestSessions?: unknown }).digestSessions;
  if (
    !isPeriod(f.day) ||
    !isPeriod(f.month) ||
    !f.sessions ||
    typeof f.sessions !== 'object' ||
    !Array.isArray(f.recent) ||
    (f.reserved !== undefined && !(Array.isArray(f.reserved) && f.reserved.every(isReservation))) ||
    (f.started !== undefined && !isStarted(f.started)) ||
    (f.heldGen !== undefined && !(isInt(f.heldGen) && f.heldGen >= 0))
  ) {
    return 'spend summary is malformed';
  }
  return f;
}

/** What a read of the file gave: the file, nothing (absent: a true $0), or why it is unusable. */
export type ReadSpend = { file: SpendFile | null; error: string | null };

const ZERO: SpendFigure = { pico: 0n, unknown: 0 };

/** A period's figure at `now`: nothing once its period has ended (the summary was written on an earlier day). */
function periodFigure(p: Period, now: number): SpendFigure {
  return now >= p.end ? ZERO : { pico: BigInt(p.pico), unknown: p.unknown };
}

/** The reservations still held at `now` (an expired one was never settled: its child is taken as gone). */
export const liveReservations = (f: SpendFile, now: number): Reservation[] =>
  (f.reserved ?? []).filter((r) => r.until > now);

/**
 * The budgets' input for one dispatch: this session's, today's and this month's spend. `harness` names the session's
 * harness; with no session (null), nor a harness.
 */
export function spendStateFrom(
  read: ReadSpend,
  harness: Harness | null,
  sessionId: string | null,
  now: number,
  sessionTotal: string | null = null,
): SpendState {
  if (read.error !== null) return { session: null, day: ZERO, month: ZERO, sessionTotal, error: read.error };
  const f = read.file;
  if (!f)
    return {
      session: sessionId ? ZERO : null,
      day: ZERO,
      month: ZERO,
      sessionTotal,
      error: null,
      fanout: { running: 0, started: 0 },
    };
  const key = sessionId && harness ? sessionKey(harness, sessionId) : null;
  const s = key ? f.sessions[key] : undefined;
  const session: SpendFigure | null = !sessionId
    ? null
    : s && isPico(s.pico) && isInt(s.unknown)
      ? { pico: BigInt(s.pico), unknown: s.unknown }
      : { ...ZERO };
  const day = { ...periodFigure(f.day, now) };
  const month = { ...periodFigure(f.month, now) };
  let running = 0;
  // One pass over the reservations still held, each cost parsed once: a dispatch reads every reservation held since the
  // last fold (up to FOLD_EVERY held lines, plus the summary's), and each filter or parse per figure cost it more
  // (bench/README.md, "Session 17: the budget path").
  let b: ReturnType<typeof boundsAt> | null = null;
  for (const r of f.reserved ?? []) {
    if (!(r.until > now)) continue;
    // A reservation counts in the day and month holding it, even where the file's own periods have ended.
    b ??= boundsAt(f, now);
    const mine = key !== null && r.s === key;
    const inDay = r.at >= b.day.start && r.at < b.day.end;
    const inMonth = r.at >= b.month.start && r.at < b.month.end;
    if (!(mine || inDay || inMonth)) continue;
    const pico = BigInt(r.pico);
    const unknown = r.unknown ? 1 : 0;
    if (mine) {
      running++;
      if (session) {
        session.pico += pico;
        session.unknown += unknown;
      }
    }
    if (inDay) {
      day.pico += pico;
      day.unknown += unknown;
    }
    if (inMonth) {
      month.pico += pico;
      month.unknown += unknown;
    }
  }
  // A view's reservations, summed by the summary's writer (spend-digest.ts): the same figures, no walk.
  const sum = f.reservedSum;
  if (sum) {
    if (sum.session && sum.session[0] === key) {
      running += sum.session[3];
      if (session) {
        session.pico += BigInt(sum.session[1]);
        session.unknown += sum.session[2];
      }
    }
    day.pico += BigInt(sum.day[0]);
    day.unknown += sum.day[1];
    month.pico += BigInt(sum.month[0]);
    month.unknown += sum.month[1];
  }
  return {
    session,
    day,
    month,
    sessionTotal,
    error: null,
    fanout: { running, started: key === null ? 0 : (f.started?.[key]?.n ?? 0) },
  };
}

// ---- updates (pure; spend-record.ts does them under the lock) ----

const add = (a: string, b: bigint): string => (BigInt(a) + b).toString();

function within(p: Period, t: number): boolean {
  return t >= p.start && t < p.end;
}

/** Moves the periods on to the ones holding `now` when those have ended (a new day starts at $0). */
export function rollTo(f: SpendFile, now: number): SpendFile {
  if (now < f.day.end && now < f.month.end) return { ...f };
  const p = periodsAt(now);
  const day = now >= f.day.end ? { ...p.day, pico: '0', unknown: 0 } : f.day;
  const month = now >= f.month.end ? { ...p.month, pico: '0', unknown: 0 } : f.month;
  return { ...f, day, month };
}

/** Adds (sign 1) or takes away (sign -1) one completion's cost from every figure it counts in. */
function apply(f: SpendFile, e: RecentEntry, sign: 1n | -1n): void {
  const pico = e.pico === null ? 0n : BigInt(e.pico) * sign;
  const unknown = e.pico === null ? Number(sign) : 0;
  for (const p of [f.day, f.month]) {
    if (!within(p, e.at)) continue;
    p.pico = add(p.pico, pico);
    p.unknown = Math.max(0, p.unknown + unknown);
  }
  if (e.s) {
    const s = (f.sessions[e.s] ??= { pico: '0', unknown: 0, last: e.at });
    s.pico = add(s.pico, pico);
    s.unknown = Math.max(0, s.unknown + unknown);
    if (BigInt(s.pico) < 0n) s.pico = '0';
    s.last = Math.max(s.last, e.at);
  }
  for (const p of [f.day, f.month]) if (BigInt(p.pico) < 0n) p.pico = '0';
}

/** Keeps the most recently active sessions, the newest remembered completions and the newest live reservations. */
export function trim(f: SpendFile, now = f.updatedAt): SpendFile {
  const sessions = Object.entries(f.sessions)
    .sort((a, b) => b[1].last - a[1].last)
    .slice(0, MAX_SESSIONS);
  const recent = [...f.recent].sort((a, b) => b.at - a.at).slice(0, MAX_RECENT);
  const reserved = liveReservations(f, now).slice(-MAX_RESERVED);
  if (!f.started) return { ...f, sessions: Object.fromEntries(sessions), recent, reserved };
  const started = Object.entries(f.started)
    .sort((a, b) => b[1].last - a[1].last)
    .slice(0, MAX_SESSIONS);
  return { ...f, sessions: Object.fromEntries(sessions), recent, reserved, started: Object.fromEntries(started) };
}

/**
 * Takes away the reservation a new completion settles: its own dispatch's (same call id), else the oldest of its
 * session (a harness whose completion carries no call id), else none (the reservation expires).
 */
function settle(f: SpendFile, e: RecentEntry): void {
  const held = f.reserved;
  if (!held?.length) return;
  let i = e.c ? held.findIndex((r) => r.c === e.c) : -1;
  if (i < 0 && e.s) i = held.findIndex((r) => r.s === e.s);
  if (i >= 0) held.splice(i, 1);
}

/**
 * `f` with one completion counted, at `now`. A key already counted is replaced (its earlier cost taken away first), so
 * the same child reported twice, or first unpriced and then priced, counts once.
 */
export function countCompletion(f: SpendFile, e: RecentEntry, now: number): SpendFile {
  const next = rollTo(structuredClone(f), now);
  countInto(next, e, now);
  return trim(next, now);
}

/** countCompletion on `next` itself (already rolled to `now`), untrimmed. */
function countInto(next: SpendFile, e: RecentEntry, now: number): void {
  const earlier = next.recent.findIndex((r) => r.k === e.k);
  if (earlier >= 0) {
    apply(next, next.recent[earlier]!, -1n);
    next.recent.splice(earlier, 1);
  } else settle(next, e); // a child reported again settled its reservation the first time
  apply(next, e, 1n);
  next.recent.push(e);
  next.updatedAt = now;
}

/**
 * `f` holding one more reservation, at `now` (expired ones dropped). `f` is left as it is: rollTo copies the top level
 * and the periods it moves, the reservations are a new array, and nothing below is changed, so no deep copy (a
 * structuredClone of a 17 KB summary costs a dispatch more than a JSON round trip of it).
 */
export function addReservation(f: SpendFile, r: Reservation, now: number): SpendFile {
  const next = rollTo(f, now);
  // Only the reservations change, so only they are trimmed: the sessions and completions stay as every writer left them
  // (trimmed), and a foreign file's are bounded by the read (SPEND_MAX_BYTES).
  next.reserved = [...liveReservations(next, now), r].slice(-MAX_RESERVED);
  next.updatedAt = now;
  return next;
}

/** `f` counting one more child started in session `key` (a fan-out limit's count), at `now`. */
export function countStarted(f: SpendFile, key: string, now: number): SpendFile {
  const started = { ...f.started, [key]: { n: (f.started?.[key]?.n ?? 0) + 1, last: now } };
  return trim({ ...f, started, updatedAt: now }, now);
}

const byPico = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
/** The lower median: a figure one child really cost, never an average of two. */
const median = (xs: bigint[]): bigint | null => (xs.length ? [...xs].sort(byPico)[(xs.length - 1) >> 1]! : null);
/** The priced entry of the lower-median cost (its model says what it was served by). */
export const medianRow = (rows: RecentEntry[]): RecentEntry | null =>
  rows.length ? [...rows].sort((a, b) => byPico(BigInt(a.pico!), BigInt(b.pico!)))[(rows.length - 1) >> 1]! : null;

/** What a reservation is drawn from: the dispatch's session key, agent type and the model the child runs on. */
export type EstimateInput = {
  session: string | null;
  agent: string | null;
  model: string | null;
  reserve: bigint | null;
};

/** The configured `budgets.reserve` (a USD decimal) in pico-USD; null when unset. */
export const configuredReserve = (budgets: { reserve?: string }): bigint | null =>
  budgets.reserve === undefined ? null : parseDecimal(budgets.reserve) / 1_000_000n;

/**
 * A dispatch's expected cost, in pico-USD, from the completions remembered: the mean of this session's priced
 * children, else the median of this agent type's, else the configured `budgets.reserve`, else the median of the
 * children served by the model this one runs on, else the median of every priced child. null: nothing to go by.
 */
export function estimateCost(f: SpendFile, input: EstimateInput): bigint | null {
  if (f.basis) return estimateFromBasis(f.basis, input);
  // One walk of the completions (up to MAX_RECENT), each cost parsed once, every figure's inputs gathered at once.
  let mineSum = 0n;
  let mineN = 0;
  const agent: bigint[] = [];
  const model: bigint[] = [];
  const all: bigint[] = [];
  for (const r of f.recent) {
    if (r.pico === null) continue;
    const pico = BigInt(r.pico);
    all.push(pico);
    if (input.session && r.s === input.session) {
      mineSum += pico;
      mineN++;
    }
    if (input.agent && r.a === input.agent) agent.push(pico);
    if (input.model && r.m === input.model) model.push(pico);
  }
  if (mineN) return mineSum / BigInt(mineN);
  const byAgent = median(agent);
  if (byAgent !== null) return byAgent;
  if (input.reserve !== null) return input.reserve;
  return median(model) ?? median(all);
}

/** An own entry of a record read from a file (never one of Object.prototype's: an agent type named "constructor"). */
const ownEntry = <T>(r: Record<string, T>, k: string): T | undefined => (Object.hasOwn(r, k) ? r[k] : undefined);

/** estimateCost from a view's basis (the same figures, worked out by the summary's writer: spend-digest.ts). */
function estimateFromBasis(b: EstimateBasis, input: EstimateInput): bigint | null {
  const mine = input.session !== null && b.session?.key === input.session ? b.session : null;
  if (mine && mine.n > 0) return BigInt(mine.sum) / BigInt(mine.n);
  const byAgent = input.agent ? ownEntry(b.agents, input.agent) : undefined;
  if (byAgent) return BigInt(byAgent[0]);
  if (input.reserve !== null) return input.reserve;
  const byModel = input.model ? ownEntry(b.models, input.model) : undefined;
  if (byModel !== undefined) return BigInt(byModel);
  return b.all === null ? null : BigInt(b.all);
}

/**
 * What an estimate of one child is drawn from (issue 33 items 3 and 4): the median-cost priced child of this agent type,
 * else of this session, with the model it was served by (an ask's engine rescales it to the requested and the
 * parent's model). null: no priced child of either to go by.
 */
export function askBasis(f: SpendFile, input: { session: string | null; agent: string | null }): AskBasis | null {
  if (f.basis) {
    const b = f.basis;
    const byAgent = input.agent ? ownEntry(b.agents, input.agent) : undefined;
    if (byAgent) return { pico: BigInt(byAgent[0]), model: byAgent[1], from: 'agent', n: byAgent[2] };
    const mine = input.session && b.session?.key === input.session && b.session.n > 0 ? b.session.mid : null;
    return mine ? { pico: BigInt(mine[0]), model: mine[1], from: 'session', n: mine[2] } : null;
  }
  const priced = f.recent.filter((r) => r.pico !== null);
  const pick = (from: AskBasis['from'], rows: RecentEntry[]): AskBasis | null => {
    const mid = medianRow(rows);
    return mid ? { pico: BigInt(mid.pico!), model: mid.m ?? null, from, n: rows.length } : null;
  };
  return (
    (input.agent
      ? pick(
          'agent',
          priced.filter((r) => r.a === input.agent),
        )
      : null) ??
    (input.session
      ? pick(
          'session',
          priced.filter((r) => r.s === input.session),
        )
      : null)
  );
}

/** What one subagent like this costs in all, for a stop message: askBasis's figure and which children it came from. */
export function childEstimate(
  f: SpendFile | null,
  input: { agent: string | null; session: string | null },
): { pico: bigint; from: 'agent' | 'session' } | null {
  const b = f ? askBasis(f, input) : null;
  return b ? { pico: b.pico, from: b.from } : null;
}

/** A journal entry as read back (spend-journal.ts; the hooks module reads them too). Checked by hand, as the file is. */
export const isRecentEntry = (v: unknown): v is RecentEntry => {
  const e = v as RecentEntry;
  return (
    !!e &&
    typeof e === 'object' &&
    typeof e.k === 'string' &&
    (e.s === null || typeof e.s === 'string') &&
    isInt(e.at) &&
    (e.pico === null || isPico(e.pico))
  );
};

/** `f` with the journal's entries counted (each once, by key), at `now`. */
export function foldJournal(f: SpendFile, entries: RecentEntry[], now: number): SpendFile {
  if (entries.length === 0) return f;
  // One copy for the lot: a merge may fold thousands of entries.
  const next = rollTo(structuredClone(f), now);
  for (const e of entries) countInto(next, e, now);
  return trim(next, now);
}

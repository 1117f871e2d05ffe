/**
 * The spend summary's digest: what a dispatch needs of it, written at the head of the summary's own text by its one
 * writer (writeFold), so a dispatch parses a few hundred bytes where it parsed the whole ~16 KB summary (sessions and
 * completions at their caps): the parse and the walks over its completions were ~1.9 M of the budget path's ~5.5 M
 * instructions on Node 20 (bench/README.md, "Session 16: the budget digest").
 *
 * One file, one rename, so the digest and the summary it is made from never disagree (a second file written beside it
 * would, after a crash between the two writes). The text stays one JSON document, newlines being whitespace:
 *
 *   {"format":"tiergate-spend/1","digest":{periods, generation, reservations, estimate bases},
 *   "digestSessions":{
 *   "<session key>":[pico, unknown, started, priced sum, priced count, median pico, median model],
 *   …
 *   },
 *   "updatedAt":…, the summary as it always was}
 *
 * A dispatch reads the first line, and finds its own session's line by its key (JSON-escaped as the writer wrote it,
 * after a newline: a JSON string holds no raw newline, so the match is a line's start) without parsing the others.
 * A summary without a digest (written by an older tiergate, by hand, or one that fails a check here) is read whole, as
 * before: the digest only ever saves work. Pure: no file access.
 */
import {
  isInt,
  isPeriod,
  isPico,
  medianRow,
  SPEND_FORMAT,
  type MedianChild,
  type Period,
  type RecentEntry,
  type SpendFile,
} from './spend-summary.js';

/** The first line's digest: everything a dispatch reads that is not one session's. */
type Digest = {
  heldGen: number;
  updatedAt: number;
  zone: string | null;
  day: Period;
  month: Period;
  /** The reservations summed (one walk by the writer, none by a dispatch): see Held. */
  held: Held;
  agents: Record<string, MedianChild>;
  models: Record<string, string>;
  all: string | null;
};

/**
 * The summary's reservations live when it was written (`until` past its updatedAt) summed: the earliest `until` among
 * them (null: none), and the day's and the month's (those made in the summary's own day, month). A dispatch takes the
 * sums only while they are what spendStateFrom would count from the list: from updatedAt on, before that `until` (every
 * one still live, every other expired) and within the summary's day and month. Otherwise (a reservation expired since,
 * a new day, a clock behind the writer's) it reads the whole summary, as it did before the sums (bench/README.md,
 * "Session 17: the budget path": the list, parsed and walked by every dispatch, cost ~30,000 instructions a reservation).
 */
type Held = { until: number | null; day: [pico: string, unknown: number]; month: [pico: string, unknown: number] };

/**
 * One session's line: its spend (pico or null: no figure, and its unknown count), the children started in it, and its
 * priced completions remembered (their sum and count, the lower-median one's cost and model; null sum: none), and its
 * reservations summed (their cost, unpriced count and count; null cost: none).
 */
type SessionLine = [
  pico: string | null,
  unknown: number,
  started: number,
  sum: string | null,
  n: number,
  midPico: string | null,
  midModel: string | null,
  heldPico: string | null,
  heldUnknown: number,
  heldN: number,
];

const HEAD = `{"format":${JSON.stringify(SPEND_FORMAT)},"digest":`;
const SESSIONS = '\n"digestSessions":{';

/** The lower-median child of `rows` (priced, in the summary's order: the same pick as askBasis's). */
function midOf(rows: RecentEntry[]): MedianChild {
  const mid = medianRow(rows)!;
  return [mid.pico!, mid.m ?? null, rows.length];
}

/** Groups `rows` by `key` (absent keys left out), in order; a Map, so no key is ever a prototype's. */
function groupBy(rows: RecentEntry[], key: (r: RecentEntry) => string | null | undefined): Map<string, RecentEntry[]> {
  const m = new Map<string, RecentEntry[]>();
  for (const r of rows) {
    const k = key(r);
    if (typeof k !== 'string') continue;
    const g = m.get(k);
    if (g) g.push(r);
    else m.set(k, [r]);
  }
  return m;
}

/** The summary's text, its digest at its head (see above). Every write of the summary goes through here (writeFold). */
export function summaryText(f: SpendFile): string {
  const {
    format: _format,
    basis: _basis,
    reservedSum: _reservedSum,
    digest: _digest,
    digestSessions: _sessions,
    ...rest
  } = f as SpendFile & { digest?: unknown; digestSessions?: unknown };
  const priced = f.recent.filter((r) => r.pico !== null && isPico(r.pico));
  const all = priced.length ? midOf(priced)[0] : null;
  const agents = Object.fromEntries([...groupBy(priced, (r) => r.a)].map(([k, rows]) => [k, midOf(rows)]));
  const models = Object.fromEntries([...groupBy(priced, (r) => r.m)].map(([k, rows]) => [k, midOf(rows)[0]]));
  // The reservations summed, as spendStateFrom counts them at a time before the earliest `until` in the summary's own
  // day and month (readDigest takes the sums only then).
  const inside = (p: Period, t: number) => t >= p.start && t < p.end;
  const held: Held = { until: null, day: ['0', 0], month: ['0', 0] };
  let day = 0n;
  let month = 0n;
  const heldBy = new Map<string, [pico: bigint, unknown: number, n: number]>();
  for (const r of f.reserved ?? []) {
    // Expired when written: no reader at or after updatedAt counts it (readDigest reads no summary from its future).
    if (r.until <= f.updatedAt) continue;
    const pico = BigInt(r.pico);
    const unknown = r.unknown ? 1 : 0;
    if (held.until === null || r.until < held.until) held.until = r.until;
    if (inside(f.day, r.at)) {
      day += pico;
      held.day[1] += unknown;
    }
    if (inside(f.month, r.at)) {
      month += pico;
      held.month[1] += unknown;
    }
    if (r.s === null) continue;
    const t = heldBy.get(r.s);
    if (t) {
      t[0] += pico;
      t[1] += unknown;
      t[2]++;
    } else heldBy.set(r.s, [pico, unknown, 1]);
  }
  held.day[0] = day.toString();
  held.month[0] = month.toString();
  const digest: Digest = {
    heldGen: f.heldGen ?? 0,
    updatedAt: f.updatedAt,
    zone: f.zone,
    day: f.day,
    month: f.month,
    held,
    agents,
    models,
    all,
  };
  const bySession = groupBy(priced, (r) => r.s);
  const keys = new Set([
    ...Object.keys(f.sessions),
    ...Object.keys(f.started ?? {}),
    ...bySession.keys(),
    ...heldBy.keys(),
  ]);
  const lines: string[] = [];
  for (const k of keys) {
    const s = Object.hasOwn(f.sessions, k) ? f.sessions[k] : undefined;
    const started = f.started && Object.hasOwn(f.started, k) ? (f.started[k]?.n ?? 0) : 0;
    const rows = bySession.get(k) ?? [];
    const mid = rows.length ? midOf(rows) : null;
    const sum = rows.length ? rows.reduce((t, r) => t + BigInt(r.pico!), 0n).toString() : null;
    const line: SessionLine = [
      s ? s.pico : null,
      s ? s.unknown : 0,
      started,
      sum,
      rows.length,
      mid ? mid[0] : null,
      mid ? mid[1] : null,
      ...(heldBy.has(k)
        ? ([heldBy.get(k)![0].toString(), heldBy.get(k)![1], heldBy.get(k)![2]] as const)
        : ([null, 0, 0] as const)),
    ];
    lines.push(`${JSON.stringify(k)}:${JSON.stringify(line)}`);
  }
  const body = JSON.stringify(rest);
  return `${HEAD}${JSON.stringify(digest)},${SESSIONS}\n${lines.join(',\n')}${lines.length ? '\n' : ''}}${body === '{}' ? '}' : `,\n${body.slice(1)}`}`;
}

const isMedianChild = (v: unknown): v is MedianChild =>
  Array.isArray(v) &&
  v.length === 3 &&
  isPico(v[0]) &&
  (v[1] === null || typeof v[1] === 'string') &&
  isInt(v[2]) &&
  v[2] > 0;

const isRecordOf = <T>(v: unknown, ok: (x: unknown) => x is T): v is Record<string, T> =>
  !!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(ok);

const isFigure = (v: unknown): v is [string, number] =>
  Array.isArray(v) && v.length === 2 && isPico(v[0]) && isInt(v[1]) && v[1] >= 0;

const isHeld = (v: unknown): v is Held => {
  const h = v as Held;
  return !!h && typeof h === 'object' && (h.until === null || isInt(h.until)) && isFigure(h.day) && isFigure(h.month);
};

const isDigest = (v: unknown): v is Digest => {
  const d = v as Digest;
  return (
    !!d &&
    typeof d === 'object' &&
    isInt(d.heldGen) &&
    d.heldGen >= 0 &&
    isInt(d.updatedAt) &&
    (d.zone === null || typeof d.zone === 'string') &&
    isPeriod(d.day) &&
    isPeriod(d.month) &&
    isHeld(d.held) &&
    isRecordOf(d.agents, isMedianChild) &&
    isRecordOf(d.models, isPico) &&
    (d.all === null || isPico(d.all))
  );
};

const isCount = (v: unknown): v is number => isInt(v) && v >= 0;

const isSessionLine = (v: unknown): v is SessionLine =>
  Array.isArray(v) &&
  v.length === 10 &&
  (v[0] === null || isPico(v[0])) &&
  isCount(v[1]) &&
  isCount(v[2]) &&
  isCount(v[4]) &&
  (v[4] === 0 ? v[3] === null && v[5] === null : isPico(v[3]) && isPico(v[5])) &&
  (v[6] === null || typeof v[6] === 'string') &&
  isCount(v[8]) &&
  isCount(v[9]) &&
  (v[9] === 0 ? v[7] === null && v[8] === 0 : isPico(v[7]));

/**
 * A dispatch's view at `now` of the summary `text` for session `key` (null: none): the periods, the generation, the
 * reservations summed (`reservedSum`, `reserved` empty), this session's figures (`sessions` and `started` hold it
 * alone), no completions (`recent` empty) and the estimates' `basis`. null when the text has no digest or any part of it
 * fails a check, or when its sums are not what the list gives at `now` (see Held): the caller parses the whole summary.
 */
export function readDigest(text: string, key: string | null, now = Date.now()): SpendFile | null {
  if (!text.startsWith(HEAD)) return null;
  const nl = text.indexOf('\n', HEAD.length);
  if (nl < 0 || text.charCodeAt(nl - 1) !== 0x2c || !text.startsWith(SESSIONS, nl)) return null;
  let d: unknown;
  try {
    d = JSON.parse(text.slice(HEAD.length, nl - 1));
  } catch {
    return null;
  }
  if (!isDigest(d)) return null;
  const { held } = d;
  const inside = (p: Period) => now >= p.start && now < p.end;
  if (now < d.updatedAt || (held.until !== null && !(now < held.until)) || !inside(d.day) || !inside(d.month))
    return null;
  const from = nl + SESSIONS.length;
  const end = text.indexOf('\n}', from);
  if (end < 0) return null;
  let s: SessionLine | null = null;
  if (key !== null) {
    const needle = `\n${JSON.stringify(key)}:`;
    const at = text.indexOf(needle, from);
    if (at >= 0 && at < end) {
      const eol = text.indexOf('\n', at + 1);
      let v: unknown;
      try {
        v = JSON.parse(text.slice(at + needle.length, text.charCodeAt(eol - 1) === 0x2c ? eol - 1 : eol));
      } catch {
        return null;
      }
      if (!isSessionLine(v)) return null;
      s = v;
    }
  }
  const view: SpendFile = {
    format: SPEND_FORMAT,
    updatedAt: d.updatedAt,
    zone: d.zone,
    day: d.day,
    month: d.month,
    sessions: key !== null && s && s[0] !== null ? { [key]: { pico: s[0], unknown: s[1], last: 0 } } : {},
    recent: [],
    reserved: [],
    heldGen: d.heldGen,
    basis: {
      agents: d.agents,
      models: d.models,
      all: d.all,
      session: key !== null && s && s[4] > 0 ? { key, sum: s[3]!, n: s[4], mid: [s[5]!, s[6], s[4]] } : null,
    },
  };
  if (key !== null && s && s[2] > 0) view.started = { [key]: { n: s[2], last: 0 } };
  view.reservedSum = {
    session: key !== null && s && s[9] > 0 ? [key, s[7]!, s[8], s[9]] : null,
    day: held.day,
    month: held.month,
  };
  return view;
}

/**
 * A dispatch bundle's V8 code cache holds the functions the run that made it compiled (hook-runner/loader.ts), and a
 * dispatch under a budget takes one of several paths through its read: a held file or none yet, the summary's digest
 * (spend-digest.ts) or the whole summary (a fold due, a journal, a summary an older tiergate wrote). A path the making run
 * did not take is compiled from source in every later process: the first dispatch after an upgrade reads a summary
 * without a digest, so every later one would compile the digest's reader (bench/README.md, "Session 16").
 *
 * So the process that makes the cache, after its answer is out and only when this process ran the budget path, runs the
 * per-dispatch read on a made-up summary and held file: pure functions only, nothing read or written. Only what a
 * dispatch runs: the made-up summary is a text as the writer leaves it (warmSummaryText; a unit test holds it to
 * summaryText), not made by the writer here, whose functions (and the fold's, every FOLD_EVERY-th dispatch) would be
 * in the cache for nothing: each function in it is deserialized by every dispatch (bench/README.md, "Session 17").
 */
import { readDigest } from './spend-digest.js';
import { heldGen, heldLineText, mustFold, parseHeld, withHeld } from './spend-held.js';
import { askBasis, estimateCost, RESERVATION_TTL_MS, spendStateFrom } from './spend-summary.js';

let ran = false;

/** The budget path ran in this process (spend-reserve.ts): its cache should hold the paths it did not take. */
export const noteSpendPath = (): void => {
  ran = true;
};

/** The made-up session's key. */
export const WARM_SESSION = 'claude:warm';

/**
 * A summary as summaryText writes it at `now`: a day and a month holding `now`, $0.000001 spent in WARM_SESSION, one
 * child started there and one priced at $0.000002 (agent `agent`, model `model`), one reservation of $0.000003 held.
 */
export function warmSummaryText(now: number): string {
  const day = `{"start":${now - 1},"end":${now + 1},"pico":"0","unknown":0}`;
  const until = now + RESERVATION_TTL_MS;
  const res = `{"c":"c","s":"${WARM_SESSION}","at":${now},"until":${until},"h":"claude","pico":"3"}`;
  return (
    `{"format":"tiergate-spend/1","digest":{"heldGen":0,"updatedAt":${now},"zone":null,"day":${day},"month":${day},` +
    `"held":{"until":${until},"day":["3",0],"month":["3",0]},"agents":{"agent":["2","model",1]},"models":{"model":"2"},"all":"2"},\n` +
    `"digestSessions":{\n"${WARM_SESSION}":["1",0,1,"2",1,"2","model","3",0,1]\n},\n` +
    `"updatedAt":${now},"zone":null,"day":${day},"month":${day},` +
    `"sessions":{"${WARM_SESSION}":{"pico":"1","unknown":0,"last":${now}}},` +
    `"recent":[{"k":"k","s":"${WARM_SESSION}","at":${now},"pico":"2","a":"agent","m":"model"}],` +
    `"reserved":[${res}],"started":{"${WARM_SESSION}":{"n":1,"last":${now}}}}`
  );
}

/** Runs the budget read path on made-up data when the budget path ran here; never throws. true: all of it ran. */
export function warmCodeCache(): boolean {
  if (!ran) return false;
  try {
    const now = Date.now();
    const key = WARM_SESSION;
    const view = readDigest(warmSummaryText(now), key, now);
    if (view === null) return false;
    const r = { c: 'c', s: key, at: now, until: now + RESERVATION_TTL_MS, h: 'claude', pico: '4' };
    const held = parseHeld(heldLineText(r, heldGen(view), true) + heldLineText(r, heldGen(view), false));
    mustFold(held);
    const seen = withHeld(view, held.lines);
    estimateCost(seen, { session: key, agent: 'agent', model: 'model', reserve: null });
    estimateCost(seen, { session: null, agent: null, model: 'model', reserve: null });
    // What it read must be what it wrote: the digest's figures and the held lines' as the writers have them.
    const state = spendStateFrom({ file: seen, error: null }, 'claude', 'warm', now, null);
    return (
      state.session?.pico === 12n &&
      state.day.pico === 11n &&
      state.fanout?.running === 3 &&
      state.fanout?.started === 2 &&
      askBasis(seen, { session: key, agent: null })?.pico === 2n &&
      askBasis(seen, { session: key, agent: 'agent' })?.pico === 2n
    );
  } catch {
    return false; // a cache with less in it: never the hook's failure
  }
}

/**
 * A dispatch bundle's V8 code cache holds the functions the run that made it compiled (hook-runner/loader.ts), and a
 * dispatch under a budget takes one of several paths through its read: a held file or none yet, the summary's digest
 * (spend-digest.ts) or the whole summary (a fold due, a journal, a summary an older tiergate wrote). A path the making run
 * did not take is compiled from source in every later process: the first dispatch after an upgrade reads a summary
 * without a digest, so every later one would compile the digest's reader (bench/README.md, "Session 16").
 *
 * So the process that makes the cache, after its answer is out and only when this process ran the budget path, runs the
 * per-dispatch read on a made-up summary and held file: pure functions only, nothing read or written. The fold's
 * writers (every FOLD_EVERY-th dispatch) are left out: each function in the cache is deserialized by every dispatch.
 */
import { readDigest, summaryText } from './spend-digest.js';
import { heldGen, heldLineText, mustFold, parseHeld, withHeld } from './spend-held.js';
import { askBasis, emptySpend, estimateCost, RESERVATION_TTL_MS, spendStateFrom } from './spend-summary.js';

let ran = false;

/** The budget path ran in this process (spend-reserve.ts): its cache should hold the paths it did not take. */
export const noteSpendPath = (): void => {
  ran = true;
};

/** Runs the budget read path on made-up data when the budget path ran here; never throws. true: all of it ran. */
export function warmCodeCache(): boolean {
  if (!ran) return false;
  try {
    const now = Date.now();
    const key = 'claude:warm';
    const f = emptySpend(now);
    f.sessions[key] = { pico: '1', unknown: 0, last: now };
    f.recent = [{ k: 'k', s: key, at: now, pico: '2', a: 'agent', m: 'model' }];
    f.started = { [key]: { n: 1, last: now } };
    const view = readDigest(summaryText(f), key);
    if (view === null) return false;
    const r = { c: 'c', s: key, at: now, until: now + RESERVATION_TTL_MS, pico: '3', h: 'claude' };
    const held = parseHeld(heldLineText(r, heldGen(view), true) + heldLineText(r, heldGen(view), false));
    mustFold(held);
    const seen = withHeld(view, held.lines);
    estimateCost(seen, { session: key, agent: 'agent', model: 'model', reserve: null });
    estimateCost(seen, { session: null, agent: null, model: 'model', reserve: null });
    // What it read must be what it wrote (the digest's format and the held lines' as the writers have them).
    const state = spendStateFrom({ file: seen, error: null }, 'claude', 'warm', now, null);
    return (
      state.session?.pico === 7n &&
      state.fanout?.started === 2 &&
      askBasis(seen, { session: key, agent: null })?.pico === 2n
    );
  } catch {
    return false; // a cache with less in it: never the hook's failure
  }
}

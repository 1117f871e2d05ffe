/**
 * One line of a Codex child's rollout -> its cost, for the running child's spend (observer/child-spend.ts). Usage is
 * one `token_usage_record` per API response (0.169.0, reference/codex.md §6), keyed by its response id; the rollout
 * names no served model there, so it is priced on the model the hook payload names for this thread (the child's).
 * A `function_call` line names the call the hook is checking.
 */
import { isRecord } from '../../contracts/record.js';
import type { LineCost } from '../../observer/child-spend.js';
import type { Pricer } from '../../observer/pricing.js';
import { asString } from '../../observer/transcripts.js';
import { codexUsage } from './records.js';

export const codexLineCost =
  (model: string | null) =>
  (pricer: Pricer): LineCost =>
  (line) => {
    const usage = line.includes('"token_usage_record"');
    if (!usage && !line.includes('"function_call"')) return null;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch {
      return null;
    }
    if (!isRecord(obj) || !isRecord(obj.payload)) return null;
    const p = obj.payload;
    if (obj.type === 'response_item' && p.type === 'function_call') {
      const id = asString(p.call_id);
      return id ? { key: null, pico: 0n, calls: [id] } : null;
    }
    if (obj.type !== 'token_usage_record' || !isRecord(p.usage)) return null;
    return {
      key: asString(p.response_id),
      pico: pricer.price(model, 'codex', codexUsage(p.usage))?.picoUsd ?? null,
    };
  };

/**
 * One line of a Claude Code child transcript (`…/subagents/agent-<id>.jsonl`) -> its cost, for the running child's
 * spend (observer/child-spend.ts). The same grouping as transcript.ts: lines of one response share message.id and
 * requestId, early ones carry snapshot usage, so the key is that pair and the largest cost per key counts.
 */
import { isRecord } from '../../contracts/record.js';
import type { LineCost } from '../../observer/child-spend.js';
import type { Pricer } from '../../observer/pricing.js';
import { asString } from '../../observer/transcripts.js';
import { claudeUsage } from './usage.js';

export const claudeLineCost =
  (pricer: Pricer): LineCost =>
  (line) => {
    // Most lines (tool results, user turns) carry no usage: skipped before any parse.
    if (!line.includes('"usage"')) return null;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch {
      return null;
    }
    if (!isRecord(obj) || !isRecord(obj.message)) return null;
    const msg = obj.message;
    const model = asString(msg.model);
    if (!isRecord(msg.usage) || model === '<synthetic>') return null;
    const key = [asString(msg.id), asString(obj.requestId)].filter(Boolean).join(':') || null;
    const calls = Array.isArray(msg.content)
      ? msg.content.flatMap((b) => (isRecord(b) && b.type === 'tool_use' && asString(b.id) ? [b.id as string] : []))
      : [];
    return { key, pico: pricer.price(model, 'claude', claudeUsage(msg.usage))?.picoUsd ?? null, calls };
  };

/**
 * One decoder for Codex rollout lines (src/adapters/codex/records.ts): the tail reader (SubagentStop) and the forward
 * reader (scan, late flush) read the same record the same way.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeRolloutRecord } from '../../../../src/adapters/codex/records.js';
import { readChildTurn } from '../../../../src/adapters/codex/rollout.js';
import { parseCodexRollout } from '../../../../src/adapters/codex/transcript.js';

const THREAD = 'thread-child-1';
const TURN = 'turn-1';
const line = (type: string, payload: unknown, timestamp = '2026-12-02T14:07:01.000Z') =>
  JSON.stringify({ timestamp, type, payload });

/** A child's rollout whose turn_context names its model only in the collaboration mode's settings. */
function rollout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tg-records-'));
  const file = join(dir, 'child.jsonl');
  writeFileSync(
    file,
    [
      line('session_meta', { id: THREAD, session_id: 'root-1', parent_thread_id: 'parent-1', cwd: '/p' }),
      line('turn_context', { turn_id: TURN, collaboration_mode: { settings: { model: 'gpt-6-luna' } } }),
      line(
        'token_usage_record',
        { turn_id: TURN, response_id: 'resp-1', usage: { input_tokens: 100, output_tokens: 7 } },
        '2026-12-02T14:07:02.000Z',
      ),
    ].join('\n') + '\n',
  );
  return file;
}

describe('codex rollout records', () => {
  it('the tail reader and the forward reader read the same model and usage from the same turn', () => {
    const file = rollout();
    const tail = readChildTurn(file, TURN, 1024 * 1024);
    const forward = parseCodexRollout(file);
    expect(tail.model).toBe('gpt-6-luna');
    expect(forward.requests.map((r) => r.model)).toEqual([tail.model]);
    expect(forward.child?.usage).toEqual(tail.usage);
    expect(forward.childTurns?.map((t) => t.servedModel)).toEqual(['gpt-6-luna']);
  });

  it('decodes what the readers use and dates the rest; refuses what is no record', () => {
    expect(decodeRolloutRecord({ timestamp: 5, type: 'turn_context', payload: { turn_id: 't', model: 'm' } })).toEqual({
      kind: 'turn-context',
      at: 5,
      turnId: 't',
      model: 'm',
    });
    expect(
      decodeRolloutRecord({ timestamp: '2026-12-02T00:00:00Z', type: 'response_item', payload: { type: 'reasoning' } }),
    ).toEqual({ kind: 'other', at: Date.parse('2026-12-02T00:00:00Z') });
    expect(decodeRolloutRecord({ type: 'token_usage_record', payload: { turn_id: 't', usage: 'none' } })).toMatchObject(
      { kind: 'token-usage', turnId: 't', usage: null },
    );
    expect(
      decodeRolloutRecord({
        type: 'response_item',
        payload: { type: 'function_call', name: 'spawn_agent', call_id: 'c', arguments: '{not json' },
      }),
    ).toEqual({ kind: 'spawn', at: null, callId: 'c', args: {} });
    expect(decodeRolloutRecord([1])).toBeNull();
    expect(decodeRolloutRecord({ type: 'turn_context', payload: 'x' })).toBeNull();
    expect(decodeRolloutRecord(undefined)).toBeNull(); // a line that is not JSON (observer/json-lines.ts)
  });
});

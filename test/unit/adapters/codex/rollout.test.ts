import { appendFileSync, copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSpawnCallId, readChildTurn } from '../../../../src/adapters/codex/rollout.js';
import { codexUsage } from '../../../../src/adapters/codex/transcript.js';
import { ROLLOUTS } from './support.js';

const CHILD = join(ROLLOUTS, 'child-cheaper.child.at-SubagentStop.jsonl');
const CHILD_FINAL = join(ROLLOUTS, 'child-cheaper.child.final.jsonl');
const PARENT = join(ROLLOUTS, 'child-cheaper.parent.final.jsonl');
const CHILD_ID = '01a23714-8430-7c42-9d50-a62c42ad09ab';
const CHILD_TURN = '01a23714-843d-7422-bed5-1f5810b9672e';
const tmp = () => mkdtempSync(join(tmpdir(), 'tg-rollout-'));

describe('codex usage normalisation (pricing.md §5)', () => {
  it('input excludes cached reads and cache writes; output keeps reasoning', () => {
    expect(
      codexUsage({
        input_tokens: 1003,
        cached_input_tokens: 503,
        cache_write_input_tokens: 100,
        output_tokens: 23,
        reasoning_output_tokens: 3,
      }),
    ).toEqual({
      input: 400,
      output: 23,
      cacheRead: 503,
      cacheWrite5m: 100,
      cacheWrite1h: 0,
      reasoning: 3,
      requests: 1,
    });
  });
});

describe('codex rollout tail (child-cheaper rollouts, codex-cli 0.169.0)', () => {
  it('reads the child turn at SubagentStop: model from turn_context, usage from token_usage_record', () => {
    const t = readChildTurn(CHILD, CHILD_TURN, 4 * 1024 * 1024);
    expect(t.model).toBe('gpt-6-luna');
    expect(t.turnId).toBe(CHILD_TURN);
    expect(t.usage).toEqual({
      input: 500,
      output: 23,
      cacheRead: 503,
      cacheWrite5m: 0,
      cacheWrite1h: 0,
      reasoning: 3,
      requests: 1,
    });
    expect(t.responseIds).toEqual(['resp_demo_0003']);
    expect(t.complete).toBe(false);
    expect(t.startedAt).toBe(Date.parse('2026-12-02T14:07:01.210Z'));
  });

  it('the final rollout adds task_complete', () => {
    const t = readChildTurn(CHILD_FINAL, null, 4 * 1024 * 1024);
    expect(t.complete).toBe(true);
    expect(t.turnId).toBe(CHILD_TURN);
    expect(t.usage?.output).toBe(23);
  });

  it("a turn id not in the file yields no usage (never another turn's)", () => {
    const t = readChildTurn(CHILD, 'some-other-turn', 4 * 1024 * 1024);
    expect(t.usage).toBeNull();
    expect(t.model).toBeNull();
  });

  it('the byte cap bounds the read: usage (last ~2 KB) found, turn_context (~4 KB up) cut off', () => {
    const t = readChildTurn(CHILD, CHILD_TURN, 2500);
    expect(t.usage?.cacheRead).toBe(503);
    expect(t.model).toBeNull();
  });

  it('sums several responses of one turn and ignores other turns', () => {
    const dir = tmp();
    const f = join(dir, 'r.jsonl');
    const rec = (turn: string, id: string, inp: number, running?: number) =>
      JSON.stringify({
        type: 'token_usage_record',
        payload: {
          turn_id: turn,
          response_id: id,
          usage: { input_tokens: inp, cached_input_tokens: 10, output_tokens: 5, reasoning_output_tokens: 1 },
          ...(running
            ? {
                turn_token_usage: {
                  input_tokens: running,
                  cached_input_tokens: 20,
                  output_tokens: 10,
                  reasoning_output_tokens: 2,
                },
              }
            : {}),
        },
      });
    writeFileSync(
      f,
      [
        JSON.stringify({
          type: 'turn_context',
          timestamp: '2026-01-01T00:00:00Z',
          payload: { turn_id: 'T1', model: 'gpt-6-sol' },
        }),
        rec('T1', 'r1', 100),
        JSON.stringify({
          type: 'turn_context',
          timestamp: '2026-01-01T00:01:00Z',
          payload: { turn_id: 'T2', model: 'gpt-6-luna' },
        }),
        rec('T2', 'r2', 200),
        rec('T2', 'r3', 300),
        rec('T2', 'r3', 300),
      ].join('\n') + '\n',
    );
    const t2 = readChildTurn(f, 'T2', 1 << 20);
    expect(t2.model).toBe('gpt-6-luna');
    expect(t2.usage).toMatchObject({ input: 480, cacheRead: 20, output: 10, reasoning: 2, requests: 2 });
    const t1 = readChildTurn(f, 'T1', 1 << 20);
    expect(t1).toMatchObject({ model: 'gpt-6-sol', usage: { input: 90, output: 5, requests: 1 } });
    // Newest turn when the hook gives none; a running turn total wins over summing.
    appendFileSync(f, rec('T2', 'r4', 999, 1500) + '\n');
    expect(readChildTurn(f, null, 1 << 20).usage).toMatchObject({ input: 1480, output: 10, requests: 3 });
  });

  it('a half-written last line is skipped, not misread', () => {
    const dir = tmp();
    const f = join(dir, 'r.jsonl');
    copyFileSync(CHILD, f);
    appendFileSync(f, '{"type":"token_usage_record","payload":{"turn_id":"' + CHILD_TURN + '","usage":{"input_tok');
    expect(readChildTurn(f, CHILD_TURN, 1 << 22).usage?.input).toBe(500);
  });

  it('joins a child to its spawn call id exactly through the parent rollout', () => {
    expect(findSpawnCallId(PARENT, CHILD_ID, 1 << 22)).toBe('call_demo_1_0');
    expect(findSpawnCallId(PARENT, 'not-a-child', 1 << 22)).toBeNull();
  });

  it('a missing rollout throws (the handler records it as a diagnostic)', () => {
    expect(() => readChildTurn('/nonexistent/rollout.jsonl', null, 1000)).toThrow();
  });
});

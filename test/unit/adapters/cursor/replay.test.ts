/**
 * Replays every documented Cursor payload (test/fixtures/cursor, copied from the shared documentation-only fixtures:
 * no Cursor binary was run) through the Cursor handlers with the real routing engine, and checks what Cursor would
 * receive.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cursorAnswer } from '../../../../src/adapters/cursor/answer.js';
import { makeCursorAdapter, type CursorDeps } from '../../../../src/adapters/cursor/handlers.js';
import { normaliseWorkspaceRoot, parseCursorJson, workspaceRoots } from '../../../../src/adapters/cursor/observe.js';
import { DEFAULT_POLICY } from '../../../../src/config/defaults.js';
import type { DispatchObservation } from '../../../../src/contracts/observation.js';
import { SpoolRecordSchema, type SpoolRecord } from '../../../../src/contracts/spool.js';
import type { HookContext } from '../../../../src/contracts/hook.js';
import { appendSpool, resetSpoolFile } from '../../../../src/observer/spool.js';
import { decide } from '../../../../src/routing-engine/decide.js';
import { priceRow, testLookup } from '../../routing-engine/price-table.js';
import { fixturePayload } from '../../../support/fixtures.js';

const FIX = join(import.meta.dirname, '../../../fixtures/cursor');
const fixture = (name: string): Record<string, unknown> => fixturePayload(`cursor/${name}.json`);

const row = (id: string, input: string, output: string) => priceRow(id, 'anthropic', input, output, null);
// Cursor bills by plan; these list-like prices only give the engine something to compare.
const lookup = testLookup({
  'claude-opus-5': row('claude-opus-5', '5', '25'),
  'claude-sonnet-4-20250514': row('claude-sonnet-4-20250514', '3', '15'),
  'claude-haiku-4-5': row('claude-haiku-4-5', '1', '5'),
});

let env: Record<string, string>;
let routed: DispatchObservation[];
let spooled: SpoolRecord[];
let deps: CursorDeps;
let ctx: (event: string) => HookContext;

beforeEach(() => {
  env = { TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-cursor-')) };
  routed = [];
  spooled = [];
  resetSpoolFile();
  deps = {
    route: (obs) => (routed.push(obs), decide(obs, DEFAULT_POLICY, lookup)),
    spool: (rec, e) => (spooled.push(rec), appendSpool(rec, e)),
    now: () => 1_800_000_000_000,
  };
  ctx = (event) => ({ env, harness: 'cursor', event, startedAt: 0, deadlineMs: 5000 });
});

const run = (event: string, payload: unknown) => {
  const a = makeCursorAdapter(deps);
  return a.handlers[event]!(payload, ctx(event)) as { stdout?: string } | null;
};
const json = (a: { stdout?: string } | null) => JSON.parse(a!.stdout!) as Record<string, unknown>;

describe('preToolUse (Task)', () => {
  it("task.json: a cheaper child is allowed; the observation carries the payload's models and ids", () => {
    const out = json(run('preToolUse', fixture('preToolUse.task')));
    expect(out).toEqual({ permission: 'allow' });
    expect(routed).toHaveLength(1);
    expect(routed[0]).toMatchObject({
      harness: 'cursor',
      sessionId: 'conv-parent-1',
      callId: 'toolu_task_1',
      parentModel: 'claude-opus-5',
      parentModelSource: 'payload.model',
      requestedModel: 'claude-haiku-4-5',
      subagentType: 'explore',
      cwd: '<project>',
      capability: { canRewrite: false, canDeny: true },
    });
    expect(routed[0]!.toolInput).toEqual(fixture('preToolUse.task').tool_input);
  });

  it("a pricier child is denied with Cursor's keys, and the message names a retry", () => {
    const p = fixture('preToolUse.task');
    p.model = 'claude-haiku-4-5';
    p.tool_input = { ...(p.tool_input as object), model: 'claude-opus-5' };
    const out = json(run('preToolUse', p));
    const documented = fixture('answer.preToolUse.deny');
    expect(Object.keys(out).sort()).toEqual(Object.keys(documented).sort());
    expect(out.permission).toBe('deny');
    expect(out.agent_message).toBe(out.user_message);
    expect(out.agent_message).toMatch(/claude-opus-5 costs more than your own model claude-haiku-4-5.*Retry/);
  });

  it('task-inherit-empty-model.json: model "" falls back to the parent model seen earlier; inherit names no model', () => {
    run('preToolUse', fixture('preToolUse.task'));
    const out = json(run('preToolUse', fixture('preToolUse.task-inherit-empty-model')));
    expect(out).toEqual({ permission: 'allow' });
    expect(routed[1]).toMatchObject({
      parentModel: 'claude-opus-5',
      parentModelSource: 'earlier-payload',
      requestedModel: null,
      callId: 'toolu_task_2',
    });
  });

  it('task-inherit-empty-model.json alone: the parent model stays unknown (never invented)', () => {
    run('preToolUse', fixture('preToolUse.task-inherit-empty-model'));
    expect(routed[0]).toMatchObject({ parentModel: null, parentModelSource: null, requestedModel: null });
  });

  it('subagent-own-tool.json: a tool other than Task is allowed without a decision', () => {
    expect(json(run('preToolUse', fixture('preToolUse.subagent-own-tool')))).toEqual({ permission: 'allow' });
    expect(routed).toHaveLength(0);
  });
});

describe('subagentStart', () => {
  it('basic.json (subagent_model "inherit"): the child inherits; parent model from model_id', () => {
    const out = json(run('subagentStart', fixture('subagentStart.basic')));
    expect(out).toEqual(JSON.parse(JSON.stringify({ permission: fixture('answer.subagentStart.allow').permission })));
    expect(routed[0]).toMatchObject({
      sessionId: 'conv-parent-1',
      callId: 'toolu_task_1',
      requestedModel: null,
      parentModel: 'claude-opus-5',
      parentModelSource: 'payload.model_id',
    });
  });

  it('after preToolUse decided the same Task call, subagentStart answers the same and records nothing twice', () => {
    const p = fixture('preToolUse.task');
    p.model = 'claude-haiku-4-5';
    p.tool_input = { ...(p.tool_input as object), model: 'claude-opus-5' };
    const first = run('preToolUse', p);
    const second = run('subagentStart', { ...fixture('subagentStart.basic'), subagent_model: 'claude-opus-5' });
    expect(second).toEqual(first);
    expect(routed).toHaveLength(1);
  });

  it('documented-model.json: an explicit subagent_model is checked against the parent remembered for the parent conversation', () => {
    const parent = fixture('preToolUse.subagent-own-tool');
    run('preToolUse', { ...parent, conversation_id: 'conv-parent-1', model: 'claude-haiku-4-5' });
    const out = json(run('subagentStart', fixture('subagentStart.documented-model')));
    expect(out.permission).toBe('deny');
    expect(String(out.agent_message)).toContain('claude-sonnet-4-20250514');
    expect(routed[0]).toMatchObject({
      parentModel: 'claude-haiku-4-5',
      parentModelSource: 'earlier-payload',
      requestedModel: 'claude-sonnet-4-20250514',
    });
  });

  it('an engine failure still answers allow (Cursor blocks on a missing answer) and leaves a diagnostic', () => {
    deps.route = () => {
      throw new Error('boom');
    };
    expect(json(run('subagentStart', fixture('subagentStart.basic')))).toEqual({ permission: 'allow' });
    const log = readFileSync(join(env.TIERGATE_HOME!, 'data', 'diagnostics.log'), 'utf8');
    expect(log).toContain('boom');
    expect(log).toContain('cursor:subagentStart');
  });

  it('a payload that is not an object answers allow', () => {
    expect(json(run('subagentStart', ['not', 'an', 'object']))).toEqual({ permission: 'allow' });
    expect(json(run('preToolUse', null))).toEqual({ permission: 'allow' });
  });
});

describe('subagentStop', () => {
  it('completed.json: a status-only completion, usage null (never $0), spooled as a valid record', () => {
    expect(json(run('subagentStop', fixture('subagentStop.completed')))).toEqual({});
    expect(spooled).toHaveLength(1);
    const obs = spooled[0]!.observation;
    expect(obs).toMatchObject({
      kind: 'completion',
      harness: 'cursor',
      sessionId: 'conv-parent-1',
      callId: 'toolu_task_1',
      agentId: 'conv-child-1',
      status: 'ok',
      usage: null,
      servedModel: null,
      usageSource: 'none',
      dedupeKey: 'cursor:toolu_task_1',
    });
    const dir = join(env.TIERGATE_HOME!, 'data', 'spool');
    const lines = readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n'));
    expect(lines).toHaveLength(1);
    expect(SpoolRecordSchema.parse(JSON.parse(lines[0]!)).type).toBe('completion');
  });

  it('failed-dispatch.json: an orphan stop is an error completion with its duration and no child id', () => {
    run('subagentStop', fixture('subagentStop.failed-dispatch'));
    expect(spooled[0]!.observation).toMatchObject({
      status: 'error',
      subagentType: 'unknown',
      agentId: null,
      startedAt: 1_800_000_000_000,
      endedAt: 1_800_000_000_000,
    });
  });
});

describe('every documented payload', () => {
  const files = readdirSync(FIX)
    .filter((f) => !f.startsWith('answer.'))
    .map((f) => f.replace(/\.json$/, ''));
  it.each(files)('%s gets valid JSON of the documented shape for its event', (name) => {
    const payload = fixture(name);
    const event = String(payload.hook_event_name);
    const adapter = makeCursorAdapter(deps);
    const handler = adapter.handlers[event];
    if (!handler) {
      // sessionStart / stop are not registered by tiergate (hooks-cursor.json): no handler, the runner prints nothing.
      expect(['sessionStart', 'stop']).toContain(event);
      return;
    }
    const out = json(handler(payload, ctx(event)) as { stdout: string });
    if (event === 'subagentStop') expect(out).toEqual({});
    else expect(['allow', 'deny']).toContain(out.permission);
  });
});

describe('input normalisation', () => {
  it('strips the UTF-8 BOM Cursor puts before payloads', () => {
    expect(parseCursorJson('\uFEFF{"a":1}')).toEqual({ a: 1 });
  });

  it('normalises workspace_roots URIs to paths', () => {
    expect(normaliseWorkspaceRoot('file:///Users/me/my%20proj')).toBe('/Users/me/my proj');
    expect(normaliseWorkspaceRoot('file:///c%3A/work/app')).toBe('c:/work/app');
    expect(normaliseWorkspaceRoot('file://localhost/srv/x')).toBe('/srv/x');
    expect(normaliseWorkspaceRoot('/plain/path')).toBe('/plain/path');
    expect(normaliseWorkspaceRoot('vscode-remote://ssh-remote+box/home/x')).toBeNull();
    expect(workspaceRoots({ workspace_roots: ['file:///a%23b', 7, '/c'] })).toEqual(['/a#b', '/c']);
  });

  it('cwd falls back to the first workspace root when the payload has no cwd', () => {
    const p = fixture('preToolUse.task');
    delete p.cwd;
    p.workspace_roots = ['file:///home/u/proj'];
    run('preToolUse', p);
    expect(routed[0]!.cwd).toBe('/home/u/proj');
  });
});

describe('answers', () => {
  it('a correction (which Cursor cannot take) is answered as a deny naming the corrected value', () => {
    const out = JSON.parse(
      cursorAnswer({
        action: 'correct',
        reason: 'over-ceiling-corrected',
        summary: 'x costs more',
        comparison: null,
        tier: 'cheap',
        diagnostics: [],
        field: 'model',
        value: 'claude-haiku-4-5',
        updatedInput: {},
      })!.stdout!,
    );
    expect(out).toMatchObject({ permission: 'deny' });
    expect(out.agent_message).toContain('"claude-haiku-4-5"');
  });
});

describe("agent definitions are read from the hook's environment, not the process's", () => {
  it('a user agent under the env HOME gives the Task its model (documentation-only rule)', () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-cursor-home-'));
    mkdirSync(join(home, '.cursor', 'agents'), { recursive: true });
    writeFileSync(
      join(home, '.cursor', 'agents', 'deep-review.md'),
      '---\nname: deep-review\nmodel: claude-haiku-4-5\n---\nbody\n',
    );
    env = { ...env, HOME: home };
    const p = fixture('preToolUse.task-inherit-empty-model');
    run('preToolUse', {
      ...p,
      cwd: join(home, 'no-project'),
      tool_input: { ...(p.tool_input as object), subagent_type: 'deep-review' },
    });
    expect(routed[0]).toMatchObject({
      agentModel: 'claude-haiku-4-5',
      agentModelFrom: join(home, '.cursor', 'agents', 'deep-review.md'),
    });
  });
});

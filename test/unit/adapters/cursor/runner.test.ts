/**
 * Cursor through the real hook runner and routeDispatch (bundled prices, default policy), as `node dist/hook.cjs
 * cursor <event>` runs it. Documentation-only payloads: no Cursor binary was run.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { runHook } from '../../../../src/wiring/command-hooks.js';
import { fixturePayload } from '../../../support/fixtures.js';

const payload = (name: string, patch: (p: Record<string, unknown>) => void = () => undefined) => {
  const p = fixturePayload(`cursor/${name}.json`);
  patch(p);
  return JSON.stringify(p);
};
let env: Record<string, string>;
beforeEach(() => {
  env = { TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-cursor-run-')) };
});
const hook = async (event: string, stdin: string) =>
  (await runHook('cursor', event, Readable.from([Buffer.from(stdin)]), env)).answer;

describe('cursor through the hook runner', () => {
  it('a BOM-prefixed subagentStart is parsed and allowed', async () => {
    expect(await hook('subagentStart', `\uFEFF${payload('subagentStart.basic')}`)).toEqual({
      stdout: '{"permission":"allow"}\n',
    });
  });

  it('a Task dispatch to a pricier model than the parent is denied with the bundled prices', async () => {
    const a = await hook(
      'preToolUse',
      payload('preToolUse.task', (p) => {
        p.model = 'claude-haiku-4-5';
        (p.tool_input as Record<string, unknown>).model = 'claude-opus-5';
      }),
    );
    const out = JSON.parse(a!.stdout!);
    expect(out.permission).toBe('deny');
    expect(out.agent_message).toMatch(/claude-opus-5 costs more than your own model claude-haiku-4-5/);
  });

  it('bad JSON, oversize stdin and an unknown event still answer Cursor with JSON where it matters', async () => {
    expect(await hook('subagentStart', '{"truncated":')).toEqual({ stdout: '{"permission":"allow"}\n' });
    env.TIERGATE_HOOK_MAX_STDIN = '64';
    expect(await hook('preToolUse', payload('preToolUse.task'))).toEqual({ stdout: '{"permission":"allow"}\n' });
    expect(await hook('subagentStop', 'x'.repeat(100))).toEqual({ stdout: '{}\n' });
    const log = readFileSync(join(env.TIERGATE_HOME!, 'data', 'diagnostics.log'), 'utf8')
      .trim()
      .split('\n');
    expect(log.map((l) => JSON.parse(l).kind)).toEqual(['bad-json', 'oversize', 'oversize']);
  });
});

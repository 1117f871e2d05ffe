/**
 * Each dispatch diagnostic is written once (fail open, never fail silent, never twice): a dispatch where tiergate
 * itself fails (decide throws) is allowed with one `error` line naming the fault, its reason and call id, as a denied
 * dispatch's diagnostic is one line. The failed-open path used to log the fault, then again from the decision's
 * diagnostics. vi.mock makes the real decide throw on demand.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const broken = vi.hoisted(() => ({ decide: false }));

vi.mock('../../../src/routing-engine/decide.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/routing-engine/decide.js')>();
  return {
    ...real,
    decide: (...a: Parameters<typeof real.decide>) => {
      if (broken.decide) throw new Error('EIO: decide exploded');
      return real.decide(...a);
    },
  };
});

const { routeDispatch } = await import('../../../src/runtime/dispatch.js');
const { clearRuntimeCache } = await import('../../../src/config/runtime.js');
const { tempHome } = await import('../observer/helpers.js');
const { claudeDispatchObservation } = await import('../support/claude-dispatch.js');
type Obs = import('../../../src/contracts/observation.js').DispatchObservation;

let env: Record<string, string>;
beforeEach(() => {
  env = { ...tempHome().env, TIERGATE_PRICE_REFRESH: 'off' };
  mkdirSync(join(env.TIERGATE_HOME!, 'config'), { recursive: true });
  writeFileSync(join(env.TIERGATE_HOME!, 'config', 'config.json'), JSON.stringify({ unknownPrice: 'deny' }));
  clearRuntimeCache();
  broken.decide = false;
});

const obs = (requestedModel: string, callId: string): Obs =>
  claudeDispatchObservation({
    callId,
    parentModel: 'claude-sonnet-5-5',
    requestedModel,
    toolInput: { model: requestedModel },
    at: Date.now(),
  });

const logLines = () =>
  readFileSync(join(env.TIERGATE_HOME!, 'data', 'diagnostics.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('a dispatch diagnostic is written once', () => {
  it('control: a denied dispatch (unknown price) logs its reason once', () => {
    expect(routeDispatch(obs('no-such-model', 'toolu_d'), env)).toMatchObject({ action: 'deny' });
    expect(logLines().filter((l) => l.message === 'no price for child no-such-model')).toHaveLength(1);
  });

  it('tiergate fails (decide throws): allowed, and the fault is one error line with its reason and call id', () => {
    broken.decide = true;
    const d = routeDispatch(obs('opus', 'toolu_f'), env);
    expect(d).toMatchObject({ action: 'allow', reason: 'internal-error' });
    expect(d.diagnostics).toEqual(['Error: EIO: decide exploded']);
    const lines = logLines().filter((l) => String(l.message).includes('decide exploded'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'error',
      where: 'dispatch:claude',
      reason: 'internal-error',
      callId: 'toolu_f',
    });
  });
});

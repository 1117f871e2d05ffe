/**
 * The real Hermes Agent 0.19.0 (PyPI) against a fake chat-completions API on 127.0.0.1, with tiergate's Python plugin
 * installed by `tiergate install hermes`. Assertions are on what the fake API received (the model each child request
 * named, the tool result the parent model read) and on what tiergate recorded.
 *
 * 0.19.0 runs a top-level delegation in the background and `chat -q` does not wait for it (seen): the fake parent
 * sleeps in a terminal call after delegating, so the child ends (and subagent_stop fires) before the parent's answer.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentText } from '../support/fake-chat-api.js';
import {
  CHEAP,
  children,
  delegation,
  hermesBin,
  ledger,
  PARENT,
  POLICY,
  PRICEY,
  REPO,
  type HermesHome,
  type Run,
} from './hermes-run.js';

const bin = hermesBin();
const homes: HermesHome[] = [];
const run = (o: Parameters<typeof delegation>[1]): Promise<Run> => delegation(bin!, o, homes);
const delegateResult = (r: Run): string => {
  for (const q of r.api.requests)
    for (const m of q.messages) if (m.role === 'tool' && m.tool_call_id === 'call_e2e_1') return contentText(m.content);
  return '';
};

/** Hermes' own logs: a start-up fetch that reached for the internet logs a warning naming its host. */
const hermesLogs = (h: HermesHome): string =>
  ['agent.log', 'errors.log']
    .map((f) => join(h.hermesHome, 'logs', f))
    .filter(existsSync)
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');

describe.skipIf(!bin)('Hermes Agent 0.19.0 end to end', () => {
  beforeAll(() => {
    if (!existsSync(join(REPO, 'dist/hook.cjs')))
      throw new Error('dist/hook.cjs missing: run `npm run build` (npm run test:e2e does)');
  });
  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  it("over the ceiling: corrected, the child's requests go out on the parent's model; the ledger prices what it served", async () => {
    const r = await run({ delegation: { model: PRICEY } });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(children(r).length).toBeGreaterThan(0);
    expect(new Set(children(r).map((q) => q.model))).toEqual(new Set([PARENT]));
    expect(
      ledger(r.home, 'SELECT harness, action, reason, parent_model, effective_model, call_id FROM dispatches'),
    ).toEqual([
      {
        harness: 'hermes',
        action: 'correct',
        reason: 'over-ceiling-corrected',
        parent_model: PARENT,
        effective_model: PARENT,
        call_id: 'call_e2e_1',
      },
    ]);
    const [row] = ledger(
      r.home,
      'SELECT status, served_model, input, output, cost_pico, result, verified, dispatch_id IS NOT NULL AS joined FROM completions',
    );
    expect(row).toMatchObject({
      status: 'ok',
      served_model: PARENT,
      input: 300,
      output: 30,
      result: 'done',
      verified: 'yes',
      joined: 1,
    });
    expect(Number(row!.cost_pico)).toBeGreaterThan(0);
    // The switches kept Hermes off the internet: no start-up fetch was tried (it logs one when it fails).
    expect(hermesLogs(r.home)).not.toMatch(/openrouter\.ai|models\.dev|github\.com|pypi\.org/);
  });

  it('over the ceiling on another endpoint: denied, the model reads why and which config value is cheaper; no child runs', async () => {
    const r = await run({ delegation: { model: PRICEY, base_url: 'API' } });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(children(r)).toEqual([]);
    const text = delegateResult(r);
    expect(text).toContain(`tiergate: delegate_task's child runs on ${PRICEY} (from config.yaml delegation.model)`);
    expect(text).toMatch(/ask the user to set delegation\.model: \S+/);
    expect(ledger(r.home, 'SELECT action, reason FROM dispatches')).toEqual([
      { action: 'deny', reason: 'over-ceiling-denied' },
    ]);
  });

  it('within the ceiling: untouched, the child on delegation.model', async () => {
    const r = await run({ delegation: { model: CHEAP } });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(new Set(children(r).map((q) => q.model))).toEqual(new Set([CHEAP]));
    expect(ledger(r.home, 'SELECT action, effective_model FROM dispatches')).toEqual([
      { action: 'allow', effective_model: CHEAP },
    ]);
  });

  // Under the default policy a child that inherits is moved down to the default tier (default-tier-applied, as for
  // every harness); with `defaultTier: parent` tiergate leaves an inheriting child alone.
  it("no delegation.model, defaultTier parent: the child inherits the parent's model, untouched", async () => {
    const r = await run({ delegation: {}, policy: { ...POLICY, defaultTier: 'parent' } });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(new Set(children(r).map((q) => q.model))).toEqual(new Set([PARENT]));
    expect(ledger(r.home, 'SELECT action, effective_model FROM dispatches')).toEqual([
      { action: 'allow', effective_model: PARENT },
    ]);
  });

  it('no delegation.model, default policy: the inheriting child is moved down to the cheap tier', async () => {
    const r = await run({ delegation: {} });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(new Set(children(r).map((q) => q.model))).toEqual(new Set([CHEAP]));
    expect(ledger(r.home, 'SELECT action, reason, effective_model FROM dispatches')).toEqual([
      { action: 'correct', reason: 'default-tier-applied', effective_model: CHEAP },
    ]);
  });

  it('a plugin that cannot start node fails open: the pricey delegation proceeds', async () => {
    const r = await run({
      delegation: { model: PRICEY },
      setup: (h) => {
        const f = join(h.hermesHome, 'plugins', 'tiergate', 'tiergate.json');
        const s = JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>;
        writeFileSync(f, JSON.stringify({ ...s, node: join(h.root, 'no-such-node') }));
      },
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(new Set(children(r).map((q) => q.model))).toEqual(new Set([PRICEY]));
    expect(delegateResult(r)).toContain('"status": "dispatched"');
  });
});

/**
 * Lost and late completions of the real Hermes Agent 0.19.0, made good from Hermes' own `$HERMES_HOME/state.db`
 * (src/adapters/hermes/state-db.ts): the plugin's spool write is made to fail (the installed plugin edited so
 * `append_spool` raises, or only subagent_stop's line), and the ledger row comes from state.db, asserted beside what
 * the fake API received.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHEAP,
  children,
  delegation,
  hermesBin,
  ledger,
  PARENT,
  PRICEY,
  REPO,
  tiergate,
  type HermesHome,
} from './hermes-run.js';

const bin = hermesBin();
const homes: HermesHome[] = [];

/** The installed plugin with `from` replaced: a spool write that fails the way a full or unwritable disk makes it. */
const breakPlugin = (from: string, to: string) => (h: HermesHome) => {
  const f = join(h.hermesHome, 'plugins', 'tiergate', '__init__.py');
  const text = readFileSync(f, 'utf8');
  if (!text.includes(from)) throw new Error(`plugin changed: '${from}' not found`);
  writeFileSync(f, text.replace(from, to));
};

const COMPLETION =
  'SELECT dedupe_key, session_id, call_id, served_model, input, output, status, usage_source, parent_model, ' +
  'duration_ms > 0 AS timed, CAST(cost_pico AS TEXT) AS cost, dispatch_id IS NOT NULL AS joined FROM completions';
const SESSION_ID = /^\d{8}_\d{6}_[0-9a-f]{6}$/;

/**
 * The one ledger row of the child, settled from state.db: its tokens (300 in, 30 out, as the fake API answered), its
 * key the child's session id, joined to its dispatch (the parent's model), timed and priced at `cost` pico-USD.
 */
const settledRow = (o: { served: string; callId: string | null; cost: bigint }) => [
  {
    dedupe_key: expect.stringMatching(/^hermes:agent:\d{8}_\d{6}_[0-9a-f]{6}$/),
    session_id: expect.stringMatching(SESSION_ID),
    call_id: o.callId,
    served_model: o.served,
    input: 300,
    output: 30,
    status: 'ok',
    usage_source: 'scan',
    parent_model: PARENT,
    timed: 1,
    cost: String(o.cost),
    joined: 1,
  },
];

describe.skipIf(!bin)('Hermes Agent 0.19.0: lost and late completions from state.db', () => {
  beforeAll(() => {
    if (!existsSync(join(REPO, 'dist/cli.js'))) throw new Error('dist/cli.js missing: run `npm run build`');
  });
  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  it('every spool line of the plugin lost: `tiergate scan` records the child from state.db, once', async () => {
    const r = await delegation(
      bin!,
      {
        delegation: { model: CHEAP },
        setup: breakPlugin('    d = spool_dir(env)\n', '    raise OSError(28, "e2e: no space left")\n'),
      },
      homes,
    );
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(new Set(children(r).map((q) => q.model))).toEqual(new Set([CHEAP]));
    // The dispatch is recorded (the engine spools it from node); the child's lines are not.
    expect(ledger(r.home, 'SELECT action, effective_model FROM dispatches')).toEqual([
      { action: 'allow', effective_model: CHEAP },
    ]);
    expect(ledger(r.home, 'SELECT COUNT(*) AS n FROM completions')).toEqual([{ n: 0 }]);

    const scan = JSON.parse(tiergate(r.home, ['scan', '--harness', 'hermes', '--json'])) as {
      completions: number;
      stores: { harness: string; path: string; children: number; error: string | null }[];
    };
    expect(scan.stores).toEqual([
      { harness: 'hermes', path: join(r.home.hermesHome, 'state.db'), children: 1, error: null },
    ]);
    expect(scan.completions).toBe(1);
    const rows = ledger(r.home, COMPLETION);
    // No call id (the spool line that carried it was lost): best-matched to its dispatch (same session, dispatched
    // before the child started). gpt-4o-mini at $0.15/M input, $0.60/M output (the bundled snapshot).
    expect(rows).toEqual(settledRow({ served: CHEAP, callId: null, cost: 300n * 150_000n + 30n * 600_000n }));
    // Idempotent: a second scan adds nothing and changes nothing.
    const again = JSON.parse(tiergate(r.home, ['scan', '--harness', 'hermes', '--json'])) as { completions: number };
    expect(again.completions).toBe(0);
    expect(ledger(r.home, COMPLETION)).toEqual(rows);
  });

  it('a corrected child whose subagent_stop line is lost: the observer pass settles it from state.db on the model it was served (no scan)', async () => {
    const r = await delegation(
      bin!,
      {
        delegation: { model: PRICEY },
        // Only the end's line fails; the start's pending line (call id, corrected model) goes through.
        setup: breakPlugin(
          '        append_spool(record, os.environ)\n',
          '        raise OSError(28, "e2e: no space left")\n',
        ),
      },
      homes,
    );
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    // The child's requests went out on the parent's model (the correction), though state.db names PRICEY.
    expect(new Set(children(r).map((q) => q.model))).toEqual(new Set([PARENT]));
    // gpt-4o at $2.50/M input, $10/M output, not claude-opus-4-1's rates.
    expect(ledger(r.home, COMPLETION)).toEqual(
      settledRow({ served: PARENT, callId: 'call_e2e_1', cost: 300n * 2_500_000n + 30n * 10_000_000n }),
    );
  });
});

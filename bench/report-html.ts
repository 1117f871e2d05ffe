// `tiergate report --html` cost vs `tiergate report --json` on the same ledger, medians of N runs in the same process
// (a ratio, not a threshold). The page runs buildReport several times (main, by tier/model/day, one per shown day by
// tier) plus rendering; the baseline is the single buildReport + formatJson that --json does.
// Usage: npx tsx bench/report-html.ts [completions=200000] [days=90] [runs=5]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Harness } from '../src/contracts/harness.js';
import { paths } from '../src/io/paths.js';
import type { Usage } from '../src/contracts/usage.js';
import { openLedger } from '../src/observer/ledger/open.js';
import { reconcileCompletions, recordCompletion, recordDispatch } from '../src/observer/ledger/store.js';
import type { Pricer } from '../src/observer/pricing.js';
import { formatHtml } from '../src/report/format-html.js';
import { formatJson } from '../src/report/format-json.js';
import { buildHtmlData } from '../src/report/html/data.js';
import { buildReport } from '../src/report/query.js';

const n = Number(process.argv[2] ?? 200_000);
const days = Number(process.argv[3] ?? 90);
const runs = Number(process.argv[4] ?? 5);
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const round = (x: number) => +x.toFixed(1);

/** USD per 1M tokens (input, output): enough to give every row a cost and a counterfactual. */
const RATES: Record<string, [number, number]> = {
  'claude-haiku-4-5': [1, 5],
  'claude-sonnet-5-5': [2, 10],
  'claude-opus-5-5': [4, 20],
  'gpt-6-luna': [0.1, 0.5],
  'gpt-6-astra': [10, 50],
};
const pricer: Pricer = {
  catalogVersion: 'bench',
  price(model: string | null, _h: Harness, u: Usage) {
    const r = model ? RATES[model] : undefined;
    if (!r) return null;
    return {
      picoUsd: BigInt(u.input) * BigInt(r[0] * 1e6) + BigInt(u.output) * BigInt(r[1] * 1e6),
      catalogVersion: 'bench',
      modelId: model!,
    };
  },
};

const dir = mkdtempSync(join(tmpdir(), 'tg-bench-html-'));
const env = { TIERGATE_HOME: join(dir, 'tg'), HOME: dir };
const db = openLedger(env);
const tiers = ['cheap', 'standard', 'premium', 'parent', null];
const served = ['claude-haiku-4-5', 'claude-sonnet-5-5', 'claude-opus-5-5', 'gpt-6-luna', 'claude-mystery-9'];
const agents = ['Explore', 'general-purpose', 'worker', 'planner', 'explorer', 'code-reviewer'];
const harnesses: Harness[] = ['claude', 'codex', 'opencode', 'pi', 'cursor'];
const t0 = Date.parse('2026-09-01T00:00:00Z');
const span = days * 86_400_000;

let s = performance.now();
db.transaction(() => {
  for (let i = 0; i < n; i++) {
    const h = harnesses[i % 5]!;
    const at = t0 + Math.floor((i / n) * span);
    const callId = `c${i}`;
    const tier = tiers[i % 5] ?? null;
    const model = served[(i * 7) % 5]!;
    recordDispatch(
      db,
      {
        harness: h,
        sessionId: `s${i % 500}`,
        callId,
        at,
        project: '/work/p',
        parentModel: 'claude-opus-5-5',
        parentModelSource: 't',
        requestedModel: model,
        requestedAgent: null,
        requestedTier: tier,
        subagentType: agents[i % 6]!,
        action: 'allow',
        reason: 'ok',
        tier,
        effectiveModel: model,
        catalogVersion: 'bench',
        escalationFrom: null,
        childAgentId: null,
        source: 'spool',
      },
      callId,
    );
    recordCompletion(db, {
      harness: h,
      sessionId: `s${i % 500}`,
      callId,
      agentId: `a${i}`,
      subagentType: agents[i % 6]!,
      project: '/work/p',
      requestedModel: model,
      servedModel: i % 11 === 0 ? served[(i + 1) % 5]! : model,
      usage:
        h === 'cursor'
          ? null
          : {
              input: 1000 + (i % 5000),
              output: 200 + (i % 700),
              cacheRead: 0,
              cacheWrite5m: 0,
              cacheWrite1h: 0,
              reasoning: 0,
              requests: 1,
            },
      status: 'ok',
      outcome: { result: 'done', verified: i % 3 ? 'yes' : 'no', escalationFrom: null },
      startedAt: at,
      endedAt: at + 60_000,
      usageSource: 'bench',
      transcriptPath: null,
      incomplete: false,
      fallbackKey: `a${i}`,
    });
  }
});
db.transaction(() => reconcileCompletions(db, pricer));
const seedMs = performance.now() - s;

function time(f: () => string): { ms: number; bytes: number } {
  const t: number[] = [];
  let bytes = 0;
  for (let i = 0; i < runs + 1; i++) {
    s = performance.now();
    bytes = f().length;
    if (i > 0) t.push(performance.now() - s);
  }
  return { ms: median(t), bytes };
}

const json = time(() => formatJson(buildReport(db, { by: 'agent' })));
const html = time(() => formatHtml(buildHtmlData(db, { by: 'agent' })));
const dataOnly = time(() => JSON.stringify(buildHtmlData(db, { by: 'agent' }).dayTier.length));
db.close();
const ledgerBytes = statSync(paths(env).ledger, { throwIfNoEntry: false })?.size ?? null;
rmSync(dir, { recursive: true, force: true });

console.log(
  JSON.stringify(
    {
      completions: n,
      days,
      runs,
      seedSeconds: round(seedMs / 1000),
      ledgerBytes,
      jsonMedianMs: round(json.ms),
      htmlMedianMs: round(html.ms),
      htmlQueriesOnlyMedianMs: round(dataOnly.ms),
      ratioHtmlToJson: +(html.ms / json.ms).toFixed(2),
      jsonBytes: json.bytes,
      htmlBytes: html.bytes,
    },
    null,
    2,
  ),
);

/**
 * A week of realistic ledger contents for the HTML report tests, written through the ledger's own store API and
 * priced by the real pricer (bundled snapshot): several days, tiers and harnesses, a served ≠ requested swap, an
 * unpriced model, a Cursor run without usage, a denied dispatch, a pending completion, and hostile ledger strings.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Harness } from '../../../src/contracts/harness.js';
import type { Usage } from '../../../src/contracts/usage.js';
import type { SqlDriver } from '../../../src/observer/ledger/driver.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import {
  reconcileCompletions,
  recordCompletion,
  recordDispatch,
  type CompletionRow,
  type DispatchRow,
} from '../../../src/observer/ledger/store.js';
import type { Pricer } from '../../../src/observer/pricing.js';

/** A model name built to break out of a <script> and an attribute; the page must show it as text. */
export const HOSTILE_MODEL = `</script><img src=x onerror="window.__tgPwned=1">"'&`;
export const HOSTILE_AGENT = `"><img src=x onerror=window.__tgPwned=2>`;
export const HOSTILE_SESSION = `S-<b>bold</b>`;

const T0 = Date.parse('2026-11-25T09:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export function tempHome(): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'tg-html-'));
  return {
    dir,
    env: {
      TIERGATE_HOME: join(dir, 'tg'),
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'cfg'),
      TIERGATE_PRICE_REFRESH: 'off',
    },
  };
}

const use = (input: number, output: number, cacheRead = 0, cacheWrite5m = 0): Usage => ({
  input,
  output,
  cacheRead,
  cacheWrite5m,
  cacheWrite1h: 0,
  reasoning: 0,
  requests: 3,
});

type Run = {
  harness: Harness;
  day: number;
  tier: string | null;
  parent: string;
  requested: string | null;
  served: string | null;
  agent: string;
  usage: Usage | null;
  status?: CompletionRow['status'];
  verified?: string | null;
  result?: string | null;
  session?: string;
  deny?: boolean;
};

/** The mix: 5 UTC days, 4 tiers (+ none), 5 harnesses. */
export const RUNS: Run[] = [
  // Day 0: Claude Code, cheap Explore children on haiku under an opus parent.
  {
    harness: 'claude',
    day: 0,
    tier: 'cheap',
    parent: 'claude-opus-5-5',
    requested: 'haiku',
    served: 'claude-haiku-4-5',
    agent: 'Explore',
    usage: use(120_000, 8_000, 400_000, 20_000),
    verified: 'yes',
  },
  {
    harness: 'claude',
    day: 0,
    tier: 'cheap',
    parent: 'claude-opus-5-5',
    requested: 'haiku',
    served: 'claude-haiku-4-5',
    agent: 'Explore',
    usage: use(90_000, 6_000, 300_000),
    verified: 'no',
  },
  {
    harness: 'claude',
    day: 0,
    tier: 'standard',
    parent: 'claude-opus-5-5',
    requested: 'sonnet',
    served: 'claude-sonnet-5-5',
    agent: 'general-purpose',
    usage: use(200_000, 30_000, 900_000, 50_000),
    verified: 'yes',
  },
  // Day 1: the swap: sonnet requested, haiku served (Claude Code has been seen to do this); a denied dispatch.
  {
    harness: 'claude',
    day: 1,
    tier: 'standard',
    parent: 'claude-opus-5-5',
    requested: 'sonnet',
    served: 'claude-haiku-4-5',
    agent: 'general-purpose',
    usage: use(150_000, 12_000, 500_000),
    verified: 'yes',
  },
  {
    harness: 'claude',
    day: 1,
    tier: null,
    parent: 'claude-sonnet-5-5',
    requested: 'opus',
    served: null,
    agent: 'code-reviewer',
    usage: null,
    deny: true,
  },
  {
    harness: 'codex',
    day: 1,
    tier: 'cheap',
    parent: 'gpt-6-astra',
    requested: 'gpt-6-luna',
    served: 'gpt-6-luna',
    agent: 'worker',
    usage: use(300_000, 20_000, 1_000_000),
    verified: 'tests',
  },
  // Day 2: Codex and pi; an unpriced model; a hostile model name (also unpriced).
  {
    harness: 'codex',
    day: 2,
    tier: 'standard',
    parent: 'gpt-6-astra',
    requested: 'gpt-6-luna',
    served: 'gpt-6-luna',
    agent: 'explorer',
    usage: use(80_000, 9_000),
    verified: null,
  },
  {
    harness: 'pi',
    day: 2,
    tier: 'premium',
    parent: 'claude-opus-5-5',
    requested: 'claude-opus-5-5',
    served: 'claude-opus-5-5',
    agent: 'planner',
    usage: use(60_000, 15_000, 100_000),
    verified: 'yes',
  },
  {
    harness: 'claude',
    day: 2,
    tier: 'standard',
    parent: 'claude-opus-5-5',
    requested: 'sonnet',
    served: 'claude-mystery-9',
    agent: 'general-purpose',
    usage: use(50_000, 4_000),
    verified: 'yes',
  },
  {
    harness: 'claude',
    day: 2,
    tier: 'cheap',
    parent: 'claude-opus-5-5',
    requested: 'haiku',
    served: HOSTILE_MODEL,
    agent: HOSTILE_AGENT,
    usage: use(10_000, 1_000),
    verified: 'no',
    session: HOSTILE_SESSION,
  },
  // Day 3: OpenCode; Cursor (reports no usage); a pending completion.
  {
    harness: 'opencode',
    day: 3,
    tier: 'cheap',
    parent: 'claude-sonnet-5-5',
    requested: 'claude-haiku-4-5',
    served: 'claude-haiku-4-5',
    agent: 'explore',
    usage: use(70_000, 5_000, 200_000),
    verified: 'passed',
  },
  {
    harness: 'cursor',
    day: 3,
    tier: 'standard',
    parent: 'claude-opus-5-5',
    requested: 'claude-sonnet-5-5',
    served: null,
    agent: 'cursor-task',
    usage: null,
    verified: null,
    result: null,
  },
  {
    harness: 'claude',
    day: 3,
    tier: 'cheap',
    parent: 'claude-opus-5-5',
    requested: 'haiku',
    served: null,
    agent: 'Explore',
    usage: null,
    status: 'pending',
    verified: null,
    result: null,
  },
  // Day 4: parent-tier child, failed.
  {
    harness: 'claude',
    day: 4,
    tier: 'parent',
    parent: 'claude-sonnet-5-5',
    requested: 'sonnet',
    served: 'claude-sonnet-5-5',
    agent: 'general-purpose',
    usage: use(250_000, 40_000, 1_200_000, 80_000),
    status: 'error',
    verified: null,
    result: 'failed',
  },
  {
    harness: 'codex',
    day: 4,
    tier: 'cheap',
    parent: 'gpt-6-astra',
    requested: 'gpt-6-luna',
    served: 'gpt-6-luna',
    agent: 'worker',
    usage: use(400_000, 30_000, 2_000_000),
    verified: 'yes',
  },
];

export function seedLedger(db: SqlDriver, pricer: Pricer, runs: Run[] = RUNS): void {
  db.transaction(() => {
    runs.forEach((r, i) => {
      const at = T0 + r.day * DAY + (i * HOUR) / 4;
      const callId = `call-${i}`;
      const session = r.session ?? `${r.harness}-session-${r.day < 2 ? 'a' : 'b'}`;
      const dispatch: DispatchRow = {
        harness: r.harness,
        sessionId: session,
        callId,
        at,
        project: '/work/demo',
        parentModel: r.parent,
        parentModelSource: 'transcript',
        requestedModel: r.requested,
        requestedAgent: r.agent,
        requestedTier: r.tier,
        subagentType: r.agent,
        action: r.deny ? 'deny' : 'allow',
        reason: r.deny ? 'over-ceiling-denied' : 'within-ceiling',
        tier: r.tier,
        effectiveModel: r.deny ? null : r.requested,
        catalogVersion: 'seed',
        escalationFrom: null,
        childAgentId: null,
        source: 'spool',
      };
      recordDispatch(db, dispatch, callId);
      if (r.deny) return;
      const completion: CompletionRow = {
        harness: r.harness,
        sessionId: session,
        callId,
        agentId: `agent-${i}`,
        subagentType: r.agent,
        project: '/work/demo',
        requestedModel: r.requested,
        servedModel: r.served,
        usage: r.usage,
        status: r.status ?? 'ok',
        outcome: {
          result: r.result === undefined ? 'done' : r.result,
          verified: r.verified ?? null,
          escalationFrom: null,
        },
        startedAt: at,
        endedAt: at + 20 * 60_000,
        usageSource: 'transcript-tail',
        transcriptPath: null,
        incomplete: r.status === 'pending',
        fallbackKey: `agent-${i}`,
      };
      recordCompletion(db, completion);
    });
  });
  db.transaction(() => reconcileCompletions(db, pricer));
}

export function seededHome(pricer: (env: Record<string, string>) => Pricer): {
  dir: string;
  env: Record<string, string>;
} {
  const home = tempHome();
  const db = openLedger(home.env);
  try {
    seedLedger(db, pricer(home.env));
  } finally {
    db.close();
  }
  return home;
}

/**
 * SessionEnd under ledger contention: another connection holds the ledger's write lock (BEGIN IMMEDIATE) for the whole
 * hook. SQLite's busy wait is synchronous, so no timer can end it: only the drain's budget and the busy timeout, both
 * cut from the hook's remaining time, keep the process inside its deadline. Each harness's SessionEnd is started with
 * the manifest's own command line (through sh, as the harness does) and must exit before the manifest's timeout minus
 * a margin, leave the spool for the next pass, and say in the diagnostic log why the drain stopped.
 * Before the budget was cut from the deadline: Claude 4.3 s of 5 s, Codex 8.6 s of 3 s with three spool files.
 *
 * And, statically: every event in every manifest has an inner deadline that leaves the process's start and exit
 * inside its timeout.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { EVENT_DEADLINE_CAPS } from '../../../src/descriptors/index.js';
import { deadlineFor as deadlineWithCaps } from '../../../src/hook-runner/core.js';
import { openLedger } from '../../../src/observer/ledger/open.js';
import { fixturePayload } from '../../support/fixtures.js';

/** The runner's deadline with the caps the wiring hands it (the descriptors'). */
const deadlineFor = (harness: string, event: string, env: Record<string, string | undefined>) =>
  deadlineWithCaps(harness, event, env, EVENT_DEADLINE_CAPS);

const root = join(import.meta.dirname, '../../..');
/** What the process's exit may take past the deadline's drain and still count as inside the manifest's timeout. */
const MARGIN_MS = 250;
/** Node's start and the bundle's load, before the runner's clock starts (seen up to ~0.8 s on a loaded 2-core box). */
const START_ALLOWANCE_MS = 800;

type Entry = { harness: string; event: string; command: string; timeoutMs: number; rootVar: string };

/** Every hook command in a manifest, with its timeout (Claude/Codex nest `hooks`, Cursor's format is flat). */
function manifestEntries(file: string): Entry[] {
  const out: Entry[] = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    const m = typeof o.command === 'string' ? /\$\{([A-Z_]+)\}\/dist\/hook\.cjs" (\w+) (\w+)/.exec(o.command) : null;
    if (m && typeof o.timeout === 'number')
      out.push({
        harness: m[2]!,
        event: m[3]!,
        command: o.command as string,
        timeoutMs: o.timeout * 1000,
        rootVar: m[1]!,
      });
    Object.values(o).forEach(visit);
  };
  visit(JSON.parse(readFileSync(join(root, file), 'utf8')));
  return out;
}

/** The environment the manifest's command line gives the hook (`VAR=value node …`). */
const commandEnv = (command: string): Record<string, string> =>
  Object.fromEntries([...command.matchAll(/(?:^|\s)([A-Z_]+)=(\S+) (?=node|exec)/g)].map((m) => [m[1]!, m[2]!]));

const MANIFESTS = ['hooks.json', 'hooks-codex.json', 'hooks-cursor.json'];

describe('inner deadlines fit the manifests', () => {
  for (const file of MANIFESTS) {
    it(`${file}: every event's deadline plus the process's start fits its timeout`, () => {
      const entries = manifestEntries(file);
      expect(entries.length).toBeGreaterThan(2);
      for (const e of entries) {
        const deadline = deadlineFor(e.harness, e.event, commandEnv(e.command));
        expect({
          event: `${e.harness}:${e.event}`,
          fits: deadline + START_ALLOWANCE_MS <= e.timeoutMs - MARGIN_MS,
          deadline,
          timeoutMs: e.timeoutMs,
        }).toEqual({ event: `${e.harness}:${e.event}`, fits: true, deadline, timeoutMs: e.timeoutMs });
      }
    });
  }

  it("TIERGATE_HOOK_DEADLINE_MS lowers an event's deadline but cannot raise it past the event's own", () => {
    expect(deadlineFor('codex', 'SessionEnd', { TIERGATE_HOOK_DEADLINE_MS: '60000' })).toBeLessThan(3000);
    expect(deadlineFor('claude', 'SessionEnd', { TIERGATE_HOOK_DEADLINE_MS: '60000' })).toBeLessThan(5000);
    expect(deadlineFor('claude', 'SessionEnd', { TIERGATE_HOOK_DEADLINE_MS: '100' })).toBe(100);
  });
});

function sessionEndEntry(harness: 'claude' | 'codex'): Entry {
  const entry = manifestEntries(harness === 'claude' ? 'hooks.json' : 'hooks-codex.json').find(
    (e) => e.harness === harness && e.event === 'SessionEnd',
  );
  expect(entry).toBeTruthy();
  return entry!;
}

describe('SessionEnd with the ledger write-locked by another connection', () => {
  for (const harness of ['claude', 'codex'] as const) {
    it(`${harness}: exits inside the manifest's timeout, leaves the spool for the next pass, and says why`, () => {
      const entry = sessionEndEntry(harness);
      const dir = mkdtempSync(join(tmpdir(), `tg-busy-${harness}-`));
      const project = join(dir, 'project');
      mkdirSync(project);
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: join(dir, 'home'),
        TIERGATE_HOME: join(dir, 'tg'),
        TIERGATE_PRICE_REFRESH: 'off',
        [entry.rootVar]: root,
      };

      // A real dispatch record in the spool, copied to three files: each file is one write transaction for the drain.
      const spawn = fixturePayload('codex/PreToolUse.basic.json');
      const d = spawnSync(process.execPath, [join(root, 'dist/hook.cjs'), 'codex', 'PreToolUse'], {
        input: JSON.stringify({ ...spawn, cwd: project, model: 'gpt-6-luna' }),
        env,
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(d.stdout).toContain('deny');
      const spoolDir = join(env.TIERGATE_HOME, 'data', 'spool');
      const [first] = readdirSync(spoolDir).filter((n) => n.endsWith('.jsonl'));
      expect(first).toBeTruthy();
      for (const n of ['1', '2']) copyFileSync(join(spoolDir, first!), join(spoolDir, `99999${n}-copy.jsonl`));

      openLedger(env).close();
      const holder = new Database(join(env.TIERGATE_HOME, 'data', 'ledger.sqlite'));
      holder.exec('BEGIN IMMEDIATE');
      let r: ReturnType<typeof spawnSync>;
      const t = performance.now();
      try {
        const end = fixturePayload(`${harness}/SessionEnd.basic.json`);
        r = spawnSync('sh', ['-c', entry.command], {
          input: JSON.stringify({ ...end, cwd: project }),
          env,
          encoding: 'utf8',
          timeout: 20_000,
        });
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      const ms = performance.now() - t;
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('');
      // The measure that matters: the harness's clock, from spawn to exit, against the manifest's own timeout.
      expect({
        ms: Math.round(ms),
        limit: entry.timeoutMs - MARGIN_MS,
        inside: ms < entry.timeoutMs - MARGIN_MS,
      }).toMatchObject({ inside: true });
      const log = readFileSync(join(env.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { where: string; message: string });
      expect(
        log.filter((l) => l.where.startsWith('observer:') && /database is locked|SQLITE_BUSY/.test(l.message)).length,
      ).toBeGreaterThan(0);
      // Nothing was drained: every record is still in the spool (claimed or not), none in the ledger.
      const db = new Database(join(env.TIERGATE_HOME, 'data', 'ledger.sqlite'), { readonly: true });
      expect(db.prepare('SELECT COUNT(*) AS n FROM dispatches').get()).toEqual({ n: 0 });
      db.close();
      expect(readdirSync(spoolDir).filter((n) => /\.jsonl/.test(n)).length).toBe(3);
    });
  }
});

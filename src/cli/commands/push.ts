/**
 * `tiergate push`: copies this machine's ledger into the team's PostgreSQL ledger (src/team/push.ts); `--status` says
 * when it last succeeded. `--background` is the detached push a SessionEnd hook starts (src/team/trigger.ts): no
 * output, bounded by a watchdog, its result in the push status and its failure in the diagnostic log.
 */
import { diagnose, errorText } from '../../io/diagnostics.js';
import { findPackageRoot, packageVersion } from '../../install/context.js';
import { acquireLock, adoptLock, releaseLock } from '../../refresh/lock.js';
import { describeTeamError, serverOf, TeamError } from '../../team/pg.js';
import { pushLedger, showKey, type PushResult } from '../../team/push.js';
import { RECORD_KINDS } from '../../team/rows.js';
import { teamPaths, teamSettings } from '../../team/settings.js';
import { readPushStatus, recordPushStatus, type PushStatus } from '../../team/status.js';
import { PUSH_LOCK_ENV } from '../../team/trigger.js';
import { parseCommandFlags, usageError } from '../args.js';

/** A manual push's whole limit (--timeout); it starts no new batch after 80 % of it (a partial push, continued next time). */
const DEFAULT_TIMEOUT_S = 900;

export const USAGE = `Usage: tiergate push [--full] [--no-drain] [--timeout SECONDS] [--json]
       tiergate push --status [--json]
  Copies this machine's subagent ledger (dispatches and completions, no prompt text) into the team's PostgreSQL
  ledger at team.url (user policy file) or TIERGATE_TEAM_URL. Only rows new or changed since the last push are sent.
  The password comes from the URL, PGPASSWORD or ~/.pgpass. The schema must exist: tiergate team init.
  --full       send every row again (the team's rows are upserted: nothing is duplicated)
  --no-drain   do not move pending hook records into the ledger first
  --timeout S  give up after S seconds (default ${DEFAULT_TIMEOUT_S}): what was committed stays, the next push continues
  --status     when a push last succeeded, and the last error`;

/** The detached push starts no batch after this: the next session end starts another, which continues where it stopped. */
export const BACKGROUND_DEADLINE_MS = 4 * 60_000;
/** ...and gives up on a server that stopped answering here, so its failure is recorded before the watchdog. */
const BACKGROUND_GIVE_UP_MS = 4.5 * 60_000;
const WATCHDOG_MS = 5 * 60_000;
/** A manual push waits this long for a background push to finish before saying one is running. */
const LOCK_WAIT_MS = 60_000;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandFlags('push', USAGE, argv, {
    status: { type: 'boolean' },
    json: { type: 'boolean' },
    full: { type: 'boolean' },
    'no-drain': { type: 'boolean' },
    background: { type: 'boolean' },
    timeout: { type: 'string' },
  });
  if (!parsed) return 2;
  const { values } = parsed;
  const timeoutS = values.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(values.timeout);
  if (!(timeoutS > 0 && timeoutS <= 86_400)) return usageError('push', '--timeout takes seconds (a number above 0)');
  const env = process.env;
  if (values.status) {
    const s = readPushStatus(env);
    process.stdout.write(values.json ? `${JSON.stringify(s, null, 2)}\n` : formatStatus(s, teamSettings(env).url));
    return 0;
  }
  if (values.background)
    return background(env, values.full ?? false, values.timeout === undefined ? null : timeoutS * 1000);

  const lock = teamPaths(env).lock;
  const nonce = await waitForLock(lock);
  if (!nonce) {
    process.stderr.write('tiergate push: another push is running (a session ended just now?); try again in a minute\n');
    return 1;
  }
  try {
    const started = Date.now();
    const r = await attempt(env, {
      full: values.full ?? false,
      drain: !values['no-drain'],
      background: false,
      deadline: started + timeoutS * 800,
      giveUpAt: started + timeoutS * 1000,
    });
    if ('error' in r) {
      process.stderr.write(`tiergate push: ${r.error}\n`);
      return 1;
    }
    process.stdout.write(values.json ? `${JSON.stringify(r.result, null, 2)}\n` : summary(r.result, r.server));
    return 0;
  } finally {
    releaseLock(lock, nonce);
  }
}

async function waitForLock(lock: string): Promise<string | null> {
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const nonce = acquireLock(lock);
    if (nonce || Date.now() > until) return nonce;
    await new Promise((r) => setTimeout(r, 500));
  }
}

type Attempt = { result: PushResult; server: string } | { error: string };

/** One push, its outcome recorded in the push status whichever way it went. */
async function attempt(
  env: NodeJS.ProcessEnv,
  o: { full: boolean; drain: boolean; background: boolean; deadline?: number; giveUpAt?: number },
): Promise<Attempt> {
  const settings = teamSettings(env);
  for (const d of settings.diagnostics) if (!o.background) process.stderr.write(`tiergate: ${d}\n`);
  const server = settings.url ? serverOf(settings.url) : null;
  const at = new Date().toISOString();
  try {
    const result = await pushLedger({
      env,
      settings,
      full: o.full,
      drain: o.drain,
      deadline: o.deadline,
      giveUpAt: o.giveUpAt,
      version: tiergateVersion() ?? undefined,
    });
    recordPushStatus(env, {
      server,
      origin: result.origin,
      user: result.user,
      lastAttemptAt: at,
      lastAttempt: result.complete ? 'ok' : 'partial',
      ...(result.complete ? { lastSuccessAt: new Date().toISOString() } : {}),
      lastSent: {
        completions: result.completions.sent,
        dispatches: result.dispatches.sent,
        deleted: result.completions.deleted + result.dispatches.deleted,
      },
      lastError: result.complete ? null : 'stopped at its deadline; the next push continues',
      background: o.background,
      setAside: {
        rows: result.aside.rows,
        latest: result.aside.latest.map((a) => ({
          table: RECORD_KINDS[a.kind]?.table ?? String(a.kind),
          key: showKey(a.key),
          error: a.error,
          at: new Date(a.at).toISOString(),
        })),
      },
    });
    return { result, server: server ?? '' };
  } catch (err) {
    // A TeamError is already one redacted line; anything else (SQLite, a bug) is redacted here.
    const error =
      err instanceof TeamError ? err.message : describeTeamError(new TeamError(errorText(err)), settings.url);
    try {
      recordPushStatus(env, {
        server,
        lastAttemptAt: at,
        lastAttempt: 'failed',
        lastError: error,
        background: o.background,
      });
    } catch (statusErr) {
      diagnose('error', 'team.push', `push status not written: ${errorText(statusErr)}`, {}, env);
    }
    if (o.background || !(err instanceof TeamError)) diagnose('error', 'team.push', error, {}, env);
    return { error };
  }
}

/** The detached push: adopts the lock its trigger took, never prints, always exits within the watchdog. */
async function background(env: NodeJS.ProcessEnv, full: boolean, limitMs: number | null): Promise<number> {
  const startedAt = new Date().toISOString();
  const watchdog = setTimeout(() => {
    const error = `gave up: still running after ${WATCHDOG_MS / 1000} s (watchdog)`;
    diagnose('error', 'team.push', error, {}, env);
    try {
      recordPushStatus(env, { lastAttemptAt: startedAt, lastAttempt: 'failed', lastError: error, background: true });
    } catch {
      /* the diagnostic above says it */
    }
    process.exit(3);
  }, WATCHDOG_MS);
  watchdog.unref();
  const lock = teamPaths(env).lock;
  const nonce = env[PUSH_LOCK_ENV] ?? '';
  if (!nonce || !adoptLock(lock, nonce)) return 0; // not ours to run (started by hand, or the lock was taken over)
  try {
    const r = await attempt(env, {
      full,
      drain: true,
      background: true,
      deadline: Date.now() + Math.min(BACKGROUND_DEADLINE_MS, (limitMs ?? Number.POSITIVE_INFINITY) * 0.8),
      giveUpAt: Date.now() + Math.min(BACKGROUND_GIVE_UP_MS, limitMs ?? Number.POSITIVE_INFINITY),
    });
    return 'error' in r ? 1 : 0;
  } finally {
    releaseLock(lock, nonce);
    clearTimeout(watchdog);
  }
}

function tiergateVersion(): string | null {
  const root = findPackageRoot();
  return root ? packageVersion(root) : null;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function summary(r: PushResult, server: string): string {
  const c = r.completions;
  const d = r.dispatches;
  const unchanged = c.read - c.sent + d.read - d.sent;
  const deleted = c.deleted + d.deleted;
  const aside = c.setAside + d.setAside;
  return (
    `tiergate push: ${c.sent.toLocaleString('en-US')} completions and ${d.sent.toLocaleString('en-US')} dispatches sent` +
    `${deleted ? `, ${deleted} removed` : ''} (${(unchanged - aside).toLocaleString('en-US')} unchanged) to ${server} as '${r.user}' in ${secs(r.ms)}\n` +
    (aside ? `tiergate push: ${aside} set aside: the server refused them (tiergate push --status says why)\n` : '')
  );
}

export function formatStatus(s: PushStatus, url: string | null): string {
  const lines: string[] = [];
  lines.push(
    url
      ? `Team ledger: ${serverOf(url)}`
      : 'Team ledger: not configured (team.url in the user policy file, or TIERGATE_TEAM_URL)',
  );
  lines.push(
    s.lastSuccessAt
      ? `Last successful push: ${s.lastSuccessAt}${s.user ? ` as '${s.user}'` : ''}`
      : 'Last successful push: never',
  );
  if (s.lastAttemptAt && s.lastAttempt !== 'ok')
    lines.push(`Last attempt: ${s.lastAttemptAt} ${s.lastAttempt}${s.lastError ? `: ${s.lastError}` : ''}`);
  if (s.lastSent && s.lastAttempt !== 'failed')
    lines.push(
      `Last push sent: ${s.lastSent.completions} completions, ${s.lastSent.dispatches} dispatches${s.lastSent.deleted ? `, ${s.lastSent.deleted} removed` : ''}`,
    );
  if (s.setAside?.rows) {
    lines.push(
      `Set aside: ${s.setAside.rows} row${s.setAside.rows === 1 ? '' : 's'} the server refused (sent again when changed here, or with --full)`,
    );
    for (const a of s.setAside.latest) lines.push(`  ${a.at} ${a.table} ${a.key}: ${a.error}`);
  }
  if (s.origin) lines.push(`Origin (this data dir): ${s.origin}`);
  return `${lines.join('\n')}\n`;
}

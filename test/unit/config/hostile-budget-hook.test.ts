/**
 * Issue 28 item 1 against the built command hook (dist/hook.cjs, a process per event as the harnesses run it): a cloned
 * repository's .tiergate.json with a budget value the money type cannot hold (19 decimals, warnAt 1e-300) used to make
 * the decision throw, and the throw allowed an over-ceiling dispatch. Now the value is invalid at load (diagnosed,
 * naming the key; the user's stands) and the ceiling still refuses the pricier child, for Claude Code, Codex and
 * Cursor. Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const HOOK = join(root, 'dist/hook.cjs');

type Harness = 'claude' | 'codex' | 'cursor';

/** Each harness's over-ceiling dispatch: a child priced above its parent (each is refused or corrected clean). */
function overCeiling(harness: Harness, dir: string): { event: string; payload: Record<string, unknown> } {
  if (harness === 'claude') {
    // An opus child of a sonnet parent (the transcript says the parent runs on sonnet).
    const transcript = join(dir, 'parent.jsonl');
    copyFileSync(join(root, 'test/fixtures/claude/transcripts/parent-sonnet.parent.at-PreToolUse.jsonl'), transcript);
    return {
      event: 'PreToolUse',
      payload: { ...fixturePayload('claude/PreToolUse.parent-sonnet.json'), transcript_path: transcript },
    };
  }
  if (harness === 'codex') {
    // A gpt-6-astra child of a gpt-6-luna parent.
    return {
      event: 'PreToolUse',
      payload: { ...fixturePayload('codex/PreToolUse.deny.json'), model: 'gpt-6-luna', transcript_path: null },
    };
  }
  const task = fixturePayload('cursor/preToolUse.task.json');
  // A claude-opus-5 child of a claude-haiku-4-5 parent.
  return {
    event: 'preToolUse',
    payload: {
      ...task,
      model: 'claude-haiku-4-5',
      transcript_path: null,
      tool_input: { ...(task.tool_input as object), model: 'claude-opus-5' },
    },
  };
}

/** What the harness reads from the answer: refused or corrected (not an allow), and the model it corrected to. */
function verdict(harness: Harness, stdout: string): 'allowed' | 'refused' | 'corrected' {
  if (stdout === '') return 'allowed';
  const o = JSON.parse(stdout) as {
    hookSpecificOutput?: { permissionDecision?: string; updatedInput?: { model?: string } };
    permission?: string;
  };
  if (harness === 'cursor') return o.permission === 'deny' ? 'refused' : 'allowed';
  if (o.hookSpecificOutput?.permissionDecision === 'deny') return 'refused';
  return o.hookSpecificOutput?.updatedInput?.model === 'sonnet' ? 'corrected' : 'allowed';
}

function dispatch(harness: Harness, project: unknown, user?: unknown) {
  const dir = mkdtempSync(join(tmpdir(), `tg-hostile-budget-${harness}-`));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    TIERGATE_HOME: join(dir, 'tg'),
    TIERGATE_PRICE_REFRESH: 'off',
  };
  const repo = join(dir, 'cloned-repo');
  mkdirSync(repo);
  writeFileSync(join(repo, '.tiergate.json'), JSON.stringify(project));
  if (user !== undefined) {
    mkdirSync(join(env.TIERGATE_HOME, 'config'), { recursive: true });
    writeFileSync(join(env.TIERGATE_HOME, 'config', 'config.json'), JSON.stringify(user));
  }
  const { event, payload } = overCeiling(harness, dir);
  const input = { ...payload, cwd: repo, ...(payload.workspace_roots ? { workspace_roots: [repo] } : {}) };
  const r = spawnSync(process.execPath, [HOOK, harness, event], {
    input: JSON.stringify(input),
    env,
    cwd: repo,
    encoding: 'utf8',
    timeout: 15_000,
  });
  expect(r.status, r.stderr).toBe(0);
  let log: { message: string; reason?: string }[] = [];
  try {
    log = readFileSync(join(env.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { message: string; reason?: string });
  } catch {
    // no log: nothing diagnosed
  }
  return { verdict: verdict(harness, r.stdout), log };
}

const HOSTILE: [string, unknown, unknown, string][] = [
  ['a 19-decimal session budget', { budgets: { session: '0.0000000000000000001' } }, undefined, 'budgets.session'],
  [
    "a 19-decimal session budget under the user's own",
    { budgets: { session: '0.0000000000000000001' } },
    { budgets: { session: '5' } },
    'budgets.session',
  ],
  [
    'warnAt 1e-300 when the user has a budget',
    { budgets: { warnAt: 1e-300 } },
    { budgets: { day: '100' } },
    'budgets.warnAt',
  ],
];

describe('a project budget the money type cannot hold, through the built hooks', () => {
  for (const harness of ['claude', 'codex', 'cursor'] as const) {
    it(`${harness}: control: the child is priced over the parent and is not allowed`, () => {
      expect(dispatch(harness, {}).verdict).not.toBe('allowed');
    });
    for (const [name, project, user, key] of HOSTILE) {
      it(`${harness}: ${name} does not turn the over-ceiling dispatch into an allow, and names the key`, () => {
        const { verdict: v, log } = dispatch(harness, project, user);
        expect(v).not.toBe('allowed');
        expect(log.some((l) => l.reason === 'internal-error')).toBe(false);
        expect(log.map((l) => l.message)).toContainEqual(
          expect.stringMatching(new RegExp(`\\.tiergate\\.json: invalid 'budgets' \\(${key.replace('.', '\\.')}: `)),
        );
      });
    }
  }
});

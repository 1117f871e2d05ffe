/**
 * The real Gemini CLI (0.61.0, pinned by scripts/install-harnesses.mjs) against a fake Gemini API on 127.0.0.1, with
 * tiergate's extension installed by `tiergate install gemini --run` (Gemini's own `extensions install --consent`).
 * Every decision is asserted on what the fake API received: the model each request was sent for, and what the parent's
 * model saw of its invoke_agent call.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBin } from '../support/harness-bin.js';
import { decisionRecord } from '../support/decision-record.js';
import { readDiagnostics } from '../support/spool-read.js';
import {
  CHILD_PROMPT,
  delegation,
  startFakeGeminiApi,
  type RecordedRequest,
  type Responder,
} from './fake-gemini-api.js';
import {
  geminiEnv,
  makeGeminiHome,
  makeProject,
  runGemini,
  writeAgent,
  writeSettings,
  type GeminiHome,
} from './gemini-run.js';

const repo = join(import.meta.dirname, '../../..');
const cli = join(repo, 'dist', 'cli.js');
const found = harnessBin('gemini');
const bin = found.ok ? found.bin : '';

/** Gemini relaunches itself as a child node process (memory flags) unless told not to: one process less per run. */
const FAST = { GEMINI_CLI_NO_RELAUNCH: 'true' };

type Run = { requests: RecordedRequest[]; code: number | null; stderr: string; tiergateHome: string; stdout: string };

async function run(h: GeminiHome, name: string, respond: Responder, env: Record<string, string> = {}): Promise<Run> {
  const api = await startFakeGeminiApi(respond);
  const { project, tiergateHome } = makeProject(h, name);
  try {
    const r = await runGemini(bin, project, geminiEnv(h, tiergateHome, api.url, { ...FAST, ...env }));
    return { requests: api.requests, code: r.code, stderr: r.stderr, stdout: r.stdout, tiergateHome };
  } finally {
    await api.close();
  }
}

const children = (r: Run) => r.requests.filter((q) => q.role === 'child');
/** What the parent's model read back for each of its invoke_agent calls, in order. */
const seen = (r: Run) =>
  r.requests.flatMap((q) => q.responses.filter((x) => x.name === 'invoke_agent').map((x) => x.response));

/** The built CLI's stdout, whatever its exit code (doctor exits 1 on any finding of any section). */
function tiergate(args: string[], env: NodeJS.ProcessEnv): string {
  const r = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  return r.stdout;
}

const tgEnv = (h: GeminiHome, tiergateHome: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: h.home,
  TIERGATE_HOME: tiergateHome,
  TIERGATE_PRICE_REFRESH: 'off',
  TIERGATE_GEMINI_BIN: bin,
});

/** tiergate's hooks in the user's settings.json (no extension, so no tier agent): what a user could write by hand. */
function settingsHooks(command: (event: string) => string, timeout = 10_000): Record<string, unknown> {
  const entry = (event: string, matcher?: string) => [
    {
      ...(matcher ? { matcher } : {}),
      hooks: [{ name: `t-${event}`, type: 'command', command: command(event), timeout }],
    },
  ];
  return {
    hooks: {
      BeforeTool: entry('BeforeTool', '^invoke_agent$'),
      AfterTool: entry('AfterTool', '^invoke_agent$'),
      SessionEnd: entry('SessionEnd'),
    },
  };
}
const realHook = (event: string) => `node --preserve-symlinks-main '${join(repo, 'dist', 'hook.cjs')}' gemini ${event}`;

describe.skipIf(!found.ok)('Gemini CLI end to end', () => {
  const homes: GeminiHome[] = [];
  let installed: GeminiHome;
  let installTg: string;
  /** When the last agent file (ours or the extension's) was written: the agent index keeps none younger than 5 s. */
  let agentsWrittenAt = 0;

  beforeAll(() => {
    if (!existsSync(join(repo, 'dist/hook.cjs')))
      throw new Error('dist/hook.cjs missing: run `npm run build` (npm run test:e2e does)');
    installed = makeGeminiHome();
    homes.push(installed);
    // Agents the parent's model names: pinned to a pricier model than the 2.5-pro parent, and to a cheaper one.
    writeAgent(join(installed.gemini, 'agents'), 'pricey', 'gemini-3-pro-preview');
    writeAgent(join(installed.gemini, 'agents'), 'cheap', 'gemini-2.5-flash');
    installTg = join(installed.root, 'tg-install');
    const out = JSON.parse(tiergate(['install', 'gemini', '--run', '--json'], tgEnv(installed, installTg))) as {
      harnesses: Array<{ status: string; problems: string[] }>;
    };
    expect(out.harnesses[0]).toMatchObject({ status: 'done', problems: [] });
    agentsWrittenAt = Date.now();
  }, 120_000);

  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  it("installed by `tiergate install gemini`: Gemini's copy holds the hooks and the tier agents", () => {
    const ext = join(installed.gemini, 'extensions', 'tiergate');
    expect(JSON.parse(readFileSync(join(ext, 'gemini-extension.json'), 'utf8'))).toMatchObject({ name: 'tiergate' });
    expect(readFileSync(join(ext, 'hooks', 'hooks.json'), 'utf8')).toContain(join(repo, 'dist', 'hook.cjs'));
    expect(existsSync(join(ext, 'agents', 'tiergate-parent.md'))).toBe(true);
    const doctor = JSON.parse(tiergate(['doctor', '--json'], tgEnv(installed, installTg))) as {
      checks: Array<{ section: string; name: string; status: string }>;
    };
    expect(doctor.checks.find((c) => c.section === 'harness' && c.name === 'gemini')).toMatchObject({ status: 'ok' });
  });

  it("an agent pinned to a pricier model is caught and corrected: the child's requests go out on the parent's model", async () => {
    const r = await run(installed, 'p-correct', delegation('pricey'));
    expect(r.code).toBe(0);
    const kids = children(r);
    expect(kids.length).toBeGreaterThan(0);
    // Without tiergate this child would have gone out as gemini-3.1-pro-preview-customtools (seen in the reference).
    expect(new Set(kids.map((q) => q.model))).toEqual(new Set(['gemini-2.5-pro']));
    expect(kids[0]!.texts).toContain(CHILD_PROMPT);
    const [out] = seen(r);
    expect(out!.output).toMatch(/^Subagent 'tiergate-parent' finished\./);
    expect(out!.output).toContain('[System] Tool input parameters were modified by a hook before execution.');
    // The decision record: the agent file's model as Gemini sends it, switched to the tier agent, joined by call id.
    expect(decisionRecord({ TIERGATE_HOME: r.tiergateHome, HOME: installed.home })).toEqual([
      {
        harness: 'gemini',
        without_model: 'gemini-3.1-pro-preview-customtools',
        without_from: 'agent-file',
        kind: 'correct',
        to_value: 'tiergate-parent',
        join_method: 'dispatch-id',
        served_model: 'gemini-2.5-pro',
      },
    ]);
    // Grouped under the agent asked for, the switch beside it, and a positive saving (issue 29).
    const report = JSON.parse(tiergate(['report', '--json', '--by', 'agent'], tgEnv(installed, r.tiergateHome))) as {
      rows: Array<Record<string, any>>;
    };
    const row = report.rows.find((x) => x.group === 'pricey')!;
    expect(row).toMatchObject({ corrected: 1, correctedTo: [{ value: 'tiergate-parent', runs: 1 }] });
    expect(BigInt(row.saved.pico)).toBeGreaterThan(0n);
  });

  it("within the ceiling: untouched, and the child's usage and model land in `tiergate report --json`", async () => {
    const r = await run(installed, 'p-within', delegation('cheap'));
    expect(r.code).toBe(0);
    const kids = children(r);
    expect(kids.map((q) => q.model)).toEqual(['gemini-2.5-flash']);
    const [out] = seen(r);
    expect(out!.output).toMatch(/^Subagent 'cheap' finished\./);
    expect(out!.output).not.toContain('modified by a hook');
    // SessionEnd drained the spool into the ledger; the report reads it.
    const report = JSON.parse(tiergate(['report', '--json', '--by', 'agent'], tgEnv(installed, r.tiergateHome))) as {
      rows: Array<Record<string, any>>;
    };
    const k = kids[0]!;
    expect(report.rows.find((x) => x.group === 'cheap')).toMatchObject({
      runs: 1,
      completed: 1,
      dispatches: 1,
      corrected: 0,
      unpricedRuns: 0,
      models: [{ requested: 'gemini-2.5-flash', served: 'gemini-2.5-flash', runs: 1 }],
      // The chat file's prompt count includes the cached part; tiergate's input does not, its output includes thoughts.
      tokens: {
        input: k.usage.prompt - k.usage.cached,
        output: k.usage.candidates + k.usage.thoughts,
        cacheRead: k.usage.cached,
      },
    });
    expect(Number(report.rows.find((x) => x.group === 'cheap')!.cost.pico)).toBeGreaterThan(0);
    // `tiergate scan` reads the same chat files: the call id it computes from the parent's file is the hooks' one, and the
    // child is keyed by its agent id, so nothing is counted twice.
    const scan = JSON.parse(
      tiergate(['scan', '--harness', 'gemini', '--json'], tgEnv(installed, r.tiergateHome)),
    ) as Record<string, number>;
    expect(scan).toMatchObject({ failed: 0 });
    expect(scan.parsed).toBeGreaterThanOrEqual(2);
    expect(scan.requestsSeen).toBeGreaterThanOrEqual(3);
    const again = JSON.parse(tiergate(['report', '--json', '--by', 'agent'], tgEnv(installed, r.tiergateHome))) as {
      rows: Array<Record<string, any>>;
    };
    expect(again.rows.find((x) => x.group === 'cheap')).toMatchObject({ runs: 1, completed: 1, dispatches: 1 });
  });

  it('the agent index: kept by a dispatch once the agent files are settled, and an agent file changed after it is read again', async () => {
    // src/agent-files/agent-index.ts keeps nothing changed within RACY_MS (5 s) of its read: wait that out, so this run
    // is the one of a user whose agent files were written long ago.
    const settle = agentsWrittenAt + 5_500 - Date.now();
    if (settle > 0) await new Promise((r) => setTimeout(r, settle));
    const pricey = join(installed.gemini, 'agents', 'pricey.md');
    const name = 'p-index';
    const first = await run(installed, name, delegation('pricey'));
    expect(first.code).toBe(0);
    expect(new Set(children(first).map((q) => q.model))).toEqual(new Set(['gemini-2.5-pro']));
    // Written after the answer, 0600, holding the agents folder's listing and the pricey file under its identity.
    const indexFile = join(first.tiergateHome, 'data', 'gemini-agents.json');
    expect(statSync(indexFile).mode & 0o777).toBe(0o600);
    const read = () =>
      JSON.parse(readFileSync(indexFile, 'utf8')) as {
        format: string;
        dirs: Record<string, unknown[]>;
        files: Record<string, unknown[]>;
      };
    const kept = read();
    expect(kept.format).toBe('tiergate-agent-index/1');
    const st = statSync(pricey);
    expect(kept.files[pricey]?.slice(0, 5)).toEqual([st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs]);
    expect(JSON.stringify(kept.files[pricey]?.[6])).toContain('gemini-3-pro-preview');
    expect(kept.dirs[join(installed.gemini, 'agents')]).toBeDefined();
    // The user repins the agent to a cheaper model: the kept entry no longer matches the file, which is read again,
    // so the dispatch goes through untouched on the new model (a stale entry would have switched it to the parent's).
    try {
      writeAgent(join(installed.gemini, 'agents'), 'pricey', 'gemini-2.5-flash');
      const second = await run(installed, name, delegation('pricey'));
      expect(second.tiergateHome).toBe(first.tiergateHome);
      expect(second.code).toBe(0);
      expect(children(second).map((q) => q.model)).toEqual(['gemini-2.5-flash']);
      expect(seen(second)[0]!.output).not.toContain('modified by a hook');
      // Changed less than 5 s before that read: used once and not kept; the folder's listing stays.
      const after = read();
      expect(after.files[pricey]).toBeUndefined();
      expect(after.dirs[join(installed.gemini, 'agents')]).toBeDefined();
    } finally {
      writeAgent(join(installed.gemini, 'agents'), 'pricey', 'gemini-3-pro-preview');
      agentsWrittenAt = Date.now();
    }
  }, 120_000);

  it("uninstall: Gemini's own command removes the extension; the files it touched are as before", () => {
    const before = (f: string) => existsSync(join(installed.gemini, f));
    expect(before('extensions/tiergate')).toBe(true);
    tiergate(['uninstall', 'gemini', '--run'], tgEnv(installed, installTg));
    expect(before('extensions/tiergate')).toBe(false);
    // Neither existed before the install: Gemini's residue is taken out with them.
    expect(before('extensions/extension-enablement.json')).toBe(false);
    expect(before('extension_integrity.json')).toBe(false);
  });

  describe('hooks in settings.json, no tier agent to switch to', () => {
    let bare: GeminiHome;
    beforeAll(() => {
      bare = makeGeminiHome();
      homes.push(bare);
      writeAgent(join(bare.gemini, 'agents'), 'pricey', 'gemini-3-pro-preview');
      writeAgent(join(bare.gemini, 'agents'), 'cheap', 'gemini-2.5-flash');
    });

    it('nothing cheaper fits: denied, the model reads the reason and retries with a cheaper agent', async () => {
      writeSettings(bare, settingsHooks(realHook));
      const r = await run(bare, 'p-deny', delegation('pricey', 'cheap'));
      expect(r.code).toBe(0);
      const [denied, retried] = seen(r);
      expect(denied!.error).toMatch(
        /^Tool execution blocked: tiergate: agent pricey runs on gemini-3\.1-pro-preview-customtools .*costs more than your own model gemini-2\.5-pro/,
      );
      expect(retried!.output).toMatch(/^Subagent 'cheap' finished\./);
      expect(children(r).map((q) => q.model)).toEqual(['gemini-2.5-flash']);
    });

    it('a crashing hook (exit 1) and a hanging one (killed at its timeout) each let the pricier dispatch through', async () => {
      writeSettings(
        bare,
        settingsHooks((e) => `node --preserve-symlinks-main '/nonexistent/tiergate/dist/hook.cjs' gemini ${e}`),
      );
      const crashed = await run(bare, 'p-crash', delegation('pricey'));
      expect(crashed.code).toBe(0);
      expect(children(crashed).map((q) => q.model)).toEqual(['gemini-3.1-pro-preview-customtools']);

      // One process that never answers (exec: Gemini's SIGTERM reaches it; a shell's child would hold the pipes open).
      writeSettings(
        bare,
        settingsHooks(() => 'exec sleep 30', 1500),
      );
      const hung = await run(bare, 'p-hang', delegation('pricey'));
      expect(hung.code).toBe(0);
      expect(children(hung).map((q) => q.model)).toEqual(['gemini-3.1-pro-preview-customtools']);
      expect(hung.stderr).toContain('Hook timed out after 1500ms');
    });

    it("tiergate's own deadline passing fails open too, and is recorded as what Gemini did", async () => {
      writeSettings(bare, settingsHooks(realHook));
      const r = await run(bare, 'p-deadline', delegation('pricey'), { TIERGATE_HOOK_DEADLINE_MS: '1' });
      expect(r.code).toBe(0);
      expect(children(r).map((q) => q.model)).toEqual(['gemini-3.1-pro-preview-customtools']);
      expect(
        readDiagnostics(r.tiergateHome).some(
          (d) => d.where === 'hook:gemini:BeforeTool' && String(d.message).includes('deadline'),
        ),
      ).toBe(true);
    });
  });
});

/**
 * The agent index through the real command hook (dist/hook.cjs, a new process per dispatch; `npm run build` first), on
 * the captured payloads of Gemini CLI 0.61.0 and Copilot CLI 1.0.102: the first dispatch writes
 * `<data dir>/<harness>-agents.json` after its answer; the second reads no agent file and no agent folder, and
 * decides exactly as a dispatch without any index; an agent file changed since is read again and decides the next
 * dispatch.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RACY_MS } from '../../../src/agent-files/agent-index.js';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const hook = join(root, 'dist/hook.cjs');
const dir = mkdtempSync(join(tmpdir(), 'tg-agent-index-hook-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const home = join(dir, 'home');

// Every fs call of interest, in order, as the hook process makes them: `<call> <path or fd>`.
const preload = join(dir, 'preload.cjs');
writeFileSync(
  preload,
  `const fs = require('node:fs'); const log = process.env.TG_TEST_FS_LOG; const append = fs.appendFileSync; let busy = false;
for (const name of ['openSync', 'opendirSync', 'readdirSync', 'renameSync', 'writeSync']) {
  const f = fs[name];
  fs[name] = function (...args) {
    if (!busy && log && !(name === 'writeSync' && args[0] !== 1)) {
      busy = true;
      try { append(log, name + ' ' + (name === 'renameSync' ? args[1] : String(args[0])) + '\\n'); } finally { busy = false; }
    }
    return f.apply(this, args);
  };
}`,
);

const agentFile = (folder: string, file: string, name: string, model: string | null) => {
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, file),
    `---\nname: ${name}\ndescription: "${name}"\nkind: local\n${model ? `model: ${model}\n` : ''}---\nDo the task.\n`,
  );
};

type Case = {
  harness: string;
  event: string;
  payload: unknown;
  agentFolders: string[];
  pricey: () => string;
  /** A model under the parent's, for the pricey agent's file. */
  cheap: string;
};

function gemini(): Case {
  const agents = join(home, '.gemini', 'agents');
  agentFile(agents, 'pricey.md', 'pricey', 'gemini-3-pro-preview');
  agentFile(agents, 'cheap.md', 'cheap', 'gemini-2.5-flash');
  const ext = join(home, '.gemini', 'extensions', 'tiergate', 'agents');
  agentFile(ext, 'tiergate-parent.md', 'tiergate-parent', null);
  const chat = join(home, '.gemini', 'tmp', 'p', 'chats', 'session.jsonl');
  mkdirSync(join(chat, '..'), { recursive: true });
  const lines = readFileSync(join(root, 'test/fixtures/gemini/sessions/basic.parent.jsonl'), 'utf8').split('\n');
  writeFileSync(chat, `${lines.slice(0, 6).join('\n')}\n`);
  return {
    harness: 'gemini',
    event: 'BeforeTool',
    payload: { ...fixturePayload('gemini/BeforeTool.basic-invoke_agent.json'), cwd: home, transcript_path: chat },
    agentFolders: [agents, ext],
    pricey: () => join(agents, 'pricey.md'),
    cheap: 'gemini-2.5-flash',
  };
}

function copilot(): Case {
  const agents = join(home, '.copilot', 'agents');
  agentFile(agents, 'pricey.agent.md', 'pricey', 'claude-opus-4.8');
  agentFile(agents, 'other.agent.md', 'other', 'gpt-5.4-mini');
  const task = fixturePayload('copilot/preToolUse.basic-task.json') as { sessionId: string };
  const lines = readFileSync(join(root, 'test/fixtures/copilot/sessions/basic.session.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean);
  const events = join(home, '.copilot', 'session-state', task.sessionId, 'events.jsonl');
  mkdirSync(join(events, '..'), { recursive: true });
  const upTo = lines.slice(0, lines.findIndex((l) => l.includes('"tool.execution_start"')) + 1);
  writeFileSync(events, `${upTo.join('\n')}\n`);
  return {
    harness: 'copilot',
    event: 'preToolUse',
    payload: { ...task, cwd: home },
    agentFolders: [agents],
    pricey: () => join(agents, 'pricey.agent.md'),
    cheap: 'gpt-5.4-mini',
  };
}

const cases: Case[] = [];
beforeAll(async () => {
  cases.push(gemini(), copilot());
  // What a hook read less than RACY_MS after it changed is not kept: the agent files must be older than that.
  await new Promise((r) => setTimeout(r, RACY_MS + 300));
}, RACY_MS + 5000);

let runs = 0;
function dispatch(c: Case, tgHome: string) {
  const log = join(dir, `fs-${runs++}.log`);
  const r = spawnSync(process.execPath, ['--preserve-symlinks-main', '-r', preload, hook, c.harness, c.event], {
    input: JSON.stringify(c.payload),
    env: { PATH: process.env.PATH ?? '', HOME: home, TIERGATE_HOME: tgHome, TG_TEST_FS_LOG: log },
    encoding: 'utf8',
    timeout: 15_000,
  });
  expect(r.status).toBe(0);
  let calls: string[] = [];
  try {
    calls = readFileSync(log, 'utf8').trim().split('\n');
  } catch {
    // nothing logged
  }
  return { stdout: r.stdout, calls };
}

const agentReads = (c: Case, calls: string[]) =>
  calls.filter((l) => c.agentFolders.some((f) => l.includes(f)) && !l.startsWith('writeSync'));

describe.each(['gemini', 'copilot'])('%s dispatch through dist/hook.cjs with the agent index', (harness) => {
  const c = () => cases.find((x) => x.harness === harness)!;

  it('the second dispatch reads no agent file or folder and decides as a dispatch without the index', () => {
    const tg = join(dir, `tg-${harness}`);
    const first = dispatch(c(), tg);
    // The over-ceiling correction: the dispatch was decided from the agent file (not left alone for an unknown).
    expect(first.stdout).not.toBe('');
    expect(agentReads(c(), first.calls).length).toBeGreaterThan(0);
    // The index was written after the answer: the answer's write comes before the index's rename.
    const index = join(tg, 'data', `${harness}-agents.json`);
    const answerAt = first.calls.findIndex((l) => l.startsWith('writeSync 1'));
    const savedAt = first.calls.findIndex((l) => l === `renameSync ${index}`);
    expect(answerAt).toBeGreaterThanOrEqual(0);
    expect(savedAt).toBeGreaterThan(answerAt);
    expect(readFileSync(index, 'utf8')).toContain(c().pricey());

    const second = dispatch(c(), tg);
    expect(agentReads(c(), second.calls)).toEqual([]);
    expect(second.calls.some((l) => l.startsWith('renameSync') && l.includes('-agents.json'))).toBe(false);
    // Exactly what a dispatch without an index decides (a fresh data dir; a garbage index).
    const without = dispatch(c(), join(dir, `tg-${harness}-none`));
    expect(second.stdout).toBe(without.stdout);
    const garbage = join(dir, `tg-${harness}-garbage`);
    mkdirSync(join(garbage, 'data'), { recursive: true });
    writeFileSync(join(garbage, 'data', `${harness}-agents.json`), '{"format":');
    expect(dispatch(c(), garbage).stdout).toBe(without.stdout);
  });

  it('an agent file changed after the index was written is read again and decides the next dispatch', () => {
    const tg = join(dir, `tg-${harness}-change`);
    const before = dispatch(c(), tg).stdout;
    expect(dispatch(c(), tg).stdout).toBe(before);
    // The pricey agent now runs on a model under the parent's: nothing to correct.
    const file = c().pricey();
    const text = readFileSync(file, 'utf8');
    try {
      writeFileSync(file, text.replace(/model: .*\n/, `model: ${c().cheap}\n`));
      const after = dispatch(c(), tg);
      expect(agentReads(c(), after.calls)).toContain(`openSync ${file}`);
      expect(after.stdout).toBe(dispatch(c(), join(dir, `tg-${harness}-change-none`)).stdout);
      expect(after.stdout).not.toBe(before);
    } finally {
      writeFileSync(file, text);
    }
  });
});

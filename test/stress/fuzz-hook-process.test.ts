/**
 * The fuzz through the real process: `node dist/hook.cjs <harness> <event>` as the harness runs it, a few hundred
 * malformed payloads plus a 10 MB stdin per event. Exit 0, nothing the harness reads as a decision, and done inside
 * the harness's own timeout for that event, read from the manifest we ship (10 s for most; SessionEnd 5 s for Claude,
 * 3 s for Codex), with the env the manifest's command sets (Codex SessionEnd's 2.5 s deadline). Gemini CLI's and
 * Copilot CLI's cases run the manifest's whole command through bash, as those harnesses do (Copilot with its `env`
 * and `${PLUGIN_ROOT}` pasted as text): what is checked is the exit code of the command Copilot runs, not of node.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EVENTS,
  basePayload,
  decisionIn,
  isDefaultTierCorrection,
  malformed,
  manifestHook,
  namesNoModel,
  type Harness,
} from '../support/fuzz.js';

const root = join(import.meta.dirname, '../..');
const HOOK = join(root, 'dist/hook.cjs');
const SEED = Number(process.env.FUZZ_SEED ?? 7);
const PER_EVENT = Number(process.env.FUZZ_PROCESS_CASES ?? 28);
const CONCURRENCY = 4;

type Run = { code: number | null; stdout: string; ms: number };

/** Through the manifest's command where the harness runs one through a shell (Gemini, Copilot), else node directly. */
function hook(harness: string, event: string, input: Buffer, env: Record<string, string>): Promise<Run> {
  const command = manifestHook(harness as Harness, event).command;
  const viaShell = (harness === 'gemini' || harness === 'copilot') && command !== null;
  const [file, args] = viaShell
    ? ['bash', ['-c', command.replaceAll('${PLUGIN_ROOT}', root)]]
    : [process.execPath, [HOOK, harness, event]];
  return new Promise((resolve) => {
    const t = performance.now();
    const p = spawn(file, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    p.stdout.on('data', (d) => (stdout += d));
    // The hook may stop reading early (oversize): a closed pipe is its right, not an error here.
    p.stdin.on('error', () => undefined);
    p.stdin.end(input);
    p.on('close', (code) => resolve({ code, stdout, ms: performance.now() - t }));
  });
}

async function pool<T>(items: T[], n: number, f: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < items.length) await f(items[i++]!);
    }),
  );
}

const events = (Object.keys(EVENTS) as Harness[]).flatMap((h) => EVENTS[h].map((e) => [h, e] as const));

describe(`dist/hook.cjs fuzz: ${PER_EVENT * events.length} malformed payloads + 10 MB stdin, through the real process`, () => {
  it.each(events)(
    '%s %s',
    async (harness, event) => {
      const dir = mkdtempSync(join(tmpdir(), `tg-fuzzp-${harness}-`));
      const manifest = manifestHook(harness, event);
      const env = {
        ...Object.fromEntries(Object.entries(manifest.env).map(([k, v]) => [k, v.replaceAll('${PLUGIN_ROOT}', root)])),
        TIERGATE_HOME: join(dir, 'tg'),
        HOME: join(dir, 'home'),
        PATH: process.env.PATH ?? '',
      };
      const base = basePayload(harness, event, dir);
      // The command reaches tiergate's hook at all (its stdin debug record): a command that never ran node would exit
      // 0 through `|| true` and pass every case below having checked nothing.
      const debug = join(dir, 'stdin-debug.jsonl');
      const probe = await hook(harness, event, Buffer.from(JSON.stringify(base)), {
        ...env,
        TIERGATE_HOOK_DEBUG: debug,
      });
      expect(probe.code).toBe(0);
      expect(readFileSync(debug, 'utf8')).toContain(`"harness":"${harness}","event":"${event}"`);
      const cases = fc.sample(malformed(base), { numRuns: PER_EVENT, seed: SEED });
      cases.push({
        kind: '10MB-stdin',
        input: Buffer.concat([Buffer.from('{"tool_input":"'), Buffer.alloc(10 * 1024 * 1024, 0x61), Buffer.from('"}')]),
      });
      const failures: string[] = [];
      let checked = 0;
      await pool(cases, CONCURRENCY, async (c) => {
        const r = await hook(harness, event, c.input, env);
        if (r.code !== 0) failures.push(`${c.kind}: exit ${r.code}`);
        if (r.ms > manifest.timeoutMs)
          failures.push(`${c.kind}: ${r.ms.toFixed(0)} ms (harness timeout ${manifest.timeoutMs} ms)`);
        if (namesNoModel(harness, event, c.input) && isDefaultTierCorrection(r.stdout)) return;
        checked++;
        const why = decisionIn(harness, r.stdout, 0);
        if (why) failures.push(`${c.kind}: ${why}`);
      });
      expect(failures).toEqual([]);
      // The early return above (a legitimate default-tier correction) must not swallow the run.
      expect(checked).toBeGreaterThanOrEqual(Math.ceil(cases.length * 0.8));
    },
    600_000,
  );
});

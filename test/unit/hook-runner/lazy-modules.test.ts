/**
 * What a dispatch hook does NOT carry: zod (its payload has a hand-written guard, src/adapters/<id>/dispatch-payload.ts;
 * the policy's slow path is dist/policy-load.cjs). It is easy to bring back by accident with one import: these tests
 * fail then (test/unit/boundaries/bundle-imports.test.ts checks every dispatch bundle's inputs).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePayload } from '../../support/fixtures.js';

const root = join(import.meta.dirname, '../../..');
const dist = join(root, 'dist');
const fixture = fixturePayload;

/** Runs `node -r <probe> dist/hook.cjs …`; the probe reports which modules the process loaded, on stderr. */
function runProbed(dir: string, env: Record<string, string>, harness: string, payload: unknown, event = 'PreToolUse') {
  const probe = join(dir, 'probe.cjs');
  writeFileSync(
    probe,
    `const before = new Set(process.moduleLoadList);
process.on('exit', () => process.stderr.write('\\nPROBE ' + JSON.stringify({
  files: Object.keys(require.cache), builtins: process.moduleLoadList.filter((m) => !before.has(m)),
}) + '\\n'));\n`,
  );
  const r = spawnSync(process.execPath, ['-r', probe, join(dist, 'hook.cjs'), harness, event], {
    input: JSON.stringify(payload),
    env,
    cwd: dir,
    encoding: 'utf8',
    timeout: 15_000,
  });
  const line = r.stderr.split('\n').find((l) => l.startsWith('PROBE '));
  if (!line) throw new Error(`no probe output: ${r.stderr}`);
  return {
    status: r.status,
    stdout: r.stdout,
    loaded: JSON.parse(line.slice(6)) as { files: string[]; builtins: string[] },
  };
}

describe('the dispatch bundles', () => {
  it("carries no zod (any harness's)", () => {
    // `_zod` is the property every zod schema keeps its internals under.
    for (const h of ['claude', 'codex', 'copilot', 'cursor', 'gemini', 'grok'])
      expect(readFileSync(join(dist, `hook-dispatch-${h}.cjs`), 'utf8')).not.toContain('_zod');
  });

  // With a project file the policy goes through the slow path (dist/policy-load.cjs, zod); a dispatch served by the
  // effective file alone loads neither: test/unit/config/effective-hook.test.ts.
  it('decides with every file a dispatch reads present (policy, project policy, declared and refreshed prices)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-lazy-'));
    const env = { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), TIERGATE_HOME: join(dir, 'tg') };
    mkdirSync(join(env.TIERGATE_HOME, 'config'), { recursive: true });
    writeFileSync(
      join(env.TIERGATE_HOME, 'config', 'config.json'),
      JSON.stringify({
        mode: 'on',
        unknownPrice: 'allow',
        defaultTier: 'standard',
        codexRewrite: false,
        claudeProvider: 'anthropic',
        tiers: { codex: { cheap: 'gpt-6-luna' }, claude: { cheap: 'haiku' } },
        priceOverrides: { 'my-local-model': { input: '0.1', output: '0.2' } },
        refresh: {
          enabled: false,
          ttlHours: 12,
          sources: [{ name: 'mirror', url: 'https://prices.example/models.json', format: 'openrouter' }],
        },
        observer: { tailBytes: 65536 },
      }),
    );
    // The project file's invalid section is diagnosed and the rest still applies.
    writeFileSync(join(dir, '.tiergate.json'), JSON.stringify({ observer: { tailBytes: -1 } }));
    const prices = join(env.TIERGATE_HOME, 'data', 'prices');
    mkdirSync(prices, { recursive: true });
    writeFileSync(
      join(prices, 'harness-declared.json'),
      JSON.stringify({
        entries: [
          {
            harness: 'opencode',
            model: 'local/llama-9',
            rates: { input: '1', output: '2', cacheRead: null, cacheWrite5m: null, cacheWrite1h: null },
          },
        ],
      }),
    );
    // A refreshed catalog as an older version wrote it (whole-file JSON, not the line layout).
    const snapshot = JSON.parse(readFileSync(join(root, 'data/prices-snapshot.json'), 'utf8')) as {
      models: Record<string, unknown>;
    };
    writeFileSync(
      join(prices, 'old.catalog.json'),
      JSON.stringify(
        {
          format: 'tiergate-catalog/1',
          version: 'refresh-old',
          date: '2026-11-01',
          source: 'test',
          models: { 'gpt-6-luna': snapshot.models['gpt-6-luna'] },
          aliases: {},
        },
        null,
        2,
      ),
    );

    const codex = runProbed(dir, env, 'codex', {
      ...fixture('codex/PreToolUse.basic.json'),
      cwd: dir,
      model: 'gpt-6-luna',
    });
    expect(codex.status).toBe(0);
    expect(
      (JSON.parse(codex.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput
        .permissionDecision,
    ).toBe('deny');
    const log = readFileSync(join(env.TIERGATE_HOME, 'data', 'diagnostics.log'), 'utf8');
    expect(log).toContain("invalid 'observer' (observer.tailBytes: expected number >= 65536)");
    expect(log).not.toMatch(/catalog (invalid|unreadable)|prices:declared/);

    const transcript = join(dir, 'parent.jsonl');
    copyFileSync(join(root, 'test/fixtures/claude/transcripts/parent-sonnet.parent.at-PreToolUse.jsonl'), transcript);
    const claude = runProbed(dir, env, 'claude', {
      ...fixture('claude/PreToolUse.parent-sonnet.json'),
      cwd: dir,
      transcript_path: transcript,
    });
    expect(claude.status).toBe(0);
    expect(claude.stdout).toContain('updatedInput');
    // node:os loads at its first call (src/hook-runner/lazy-os.ts): with HOME set, a dispatch never makes one.
    for (const run of [codex, claude]) expect(run.loaded.builtins).not.toContain('NativeModule os');

    // Each ran its own dispatch bundle: dist/hook.cjs runs it through vm.Script (so it is in no require.cache), and
    // each bundle run leaves its code-cache file, named after it.
    const cached = readdirSync(join(env.TIERGATE_HOME, 'data', 'code-cache')).map((f) =>
      f.replace(/-\d+-\d+-node.*$/, ''),
    );
    expect(cached.sort()).toEqual(['hook-dispatch-claude', 'hook-dispatch-codex']);
  });

  it('answers when HOME is empty (its files under the working directory)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-lazy-'));
    // os.homedir() returns an empty HOME as it is, so tiergate's files land under the hook's cwd (dir), not the real home.
    const env = { PATH: process.env.PATH ?? '', HOME: '' };
    const r = runProbed(dir, env, 'codex', {
      ...fixture('codex/PreToolUse.basic.json'),
      cwd: dir,
      model: 'gpt-6-luna',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('deny');
    expect(readdirSync(join(dir, '.local', 'share', 'tiergate'))).toContain('spool');
  });

  it("Gemini's carries no jsonc-parser, yet reads a settings file with comments through it (required from node_modules)", () => {
    expect(readFileSync(join(dist, 'hook-dispatch-gemini.cjs'), 'utf8')).not.toContain('disallowComments'); // a jsonc-parser option name
    const dir = mkdtempSync(join(tmpdir(), 'tg-lazy-'));
    const home = join(dir, 'home');
    const agents = join(home, '.gemini', 'agents');
    mkdirSync(agents, { recursive: true });
    writeFileSync(
      join(agents, 'cheap.md'),
      '---\nname: cheap\ndescription: "cheap"\nkind: local\nmodel: gemini-2.5-flash\n---\nDo.\n',
    );
    const tier = join(home, '.gemini', 'extensions', 'tiergate', 'agents');
    mkdirSync(tier, { recursive: true });
    writeFileSync(
      join(tier, 'tiergate-parent.md'),
      '---\nname: tiergate-parent\ndescription: "x"\nkind: local\n---\nDo.\n',
    );
    const chat = join(home, '.gemini', 'tmp', 'p', 'chats', 'session.jsonl');
    mkdirSync(join(chat, '..'), { recursive: true });
    copyFileSync(join(root, 'test/fixtures/gemini/sessions/basic.parent.jsonl'), chat);
    const base = fixture('gemini/BeforeTool.basic-invoke_agent.json') as { tool_input: Record<string, unknown> };
    const payload = {
      ...base,
      cwd: dir,
      transcript_path: chat,
      tool_input: { ...base.tool_input, agent_name: 'cheap' },
    };
    const env = { PATH: process.env.PATH ?? '', HOME: home, TIERGATE_HOME: join(dir, 'tg') };
    const run = () =>
      spawnSync(process.execPath, [join(dist, 'hook.cjs'), 'gemini', 'BeforeTool'], {
        input: JSON.stringify(payload),
        env,
        cwd: dir,
        encoding: 'utf8',
        timeout: 15_000,
      });
    // A cheaper agent under the parent: untouched. The same agent made pricier by a settings override written with a
    // comment and a trailing comma: corrected, so the JSONC file was read.
    expect(run().stdout).toBe('');
    // node:module (the ESM loader and source-map code come with it) loads only for the JSONC fallback.
    const plain = runProbed(dir, env, 'gemini', payload, 'BeforeTool');
    expect(plain.stdout).toBe('');
    expect(plain.loaded.builtins).not.toContain('NativeModule module');
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      '{ // comment\n "agents": { "overrides": { "cheap": { "modelConfig": { "model": "gemini-3-pro-preview" } } } },\n}\n',
    );
    expect(run().stdout).toContain('tiergate-parent');
  });
});

/**
 * Malformed hook payloads for the fuzz tests (unit: in-process through runHook; stress: through dist/hook.cjs), and
 * the one rule every answer must pass: nothing the harness would read as a decision.
 *
 * Base payloads are captured fixtures whose unmutated decision is "no decision" (within the ceiling), so any
 * decision seen for a mutant is tiergate turning garbage into a verdict. Mutant values come from fast-check's
 * arbitraries, never from real model names, so no mutant can become a legitimately over-ceiling dispatch.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { hooksJson } from '../../src/adapters/gemini/extension.js';
import { fixturePayload } from './fixtures.js';

const FIXTURES = join(import.meta.dirname, '../fixtures');

export type Harness = 'claude' | 'codex' | 'cursor' | 'gemini' | 'copilot' | 'grok';

/** Every event each harness's command adapter handles (manifests register a subset; all are fuzzed). */
export const EVENTS: Record<Harness, string[]> = {
  claude: ['PreToolUse', 'PostToolUse', 'SubagentStop', 'SessionStart', 'SessionEnd'],
  codex: ['PreToolUse', 'SessionStart', 'SubagentStop', 'SessionEnd'],
  cursor: ['preToolUse', 'subagentStart', 'subagentStop'],
  gemini: ['BeforeTool', 'AfterTool', 'SessionStart', 'SessionEnd'],
  copilot: ['preToolUse', 'subagentStop', 'sessionStart', 'sessionEnd'],
  grok: ['PreToolUse', 'PostToolUse', 'SubagentStop', 'SessionStart', 'SessionEnd'],
};

const ROOT = join(import.meta.dirname, '../..');
/** The shipped manifests; Gemini's is written by the installer (src/adapters/gemini/extension.ts), generated here. */
const MANIFEST: Record<Harness, () => string> = {
  claude: () => readFileSync(join(ROOT, 'hooks.json'), 'utf8'),
  codex: () => readFileSync(join(ROOT, 'hooks-codex.json'), 'utf8'),
  cursor: () => readFileSync(join(ROOT, 'hooks-cursor.json'), 'utf8'),
  gemini: () => hooksJson(ROOT),
  copilot: () => readFileSync(join(ROOT, 'hooks-copilot.json'), 'utf8'),
  grok: () => readFileSync(join(ROOT, 'hooks-grok.json'), 'utf8'),
};

/** One hook command of a manifest: Claude/Codex/Cursor/Gemini `command`, Copilot `bash` (+ its `env`). */
type RawEntry = {
  command?: string;
  bash?: string;
  env?: Record<string, string>;
  timeout?: number;
  timeoutSec?: number;
};
type RawEvent = RawEntry & { hooks?: RawEntry[] };
/** A manifest's hook command, its timeout in ms and the env the harness gives it. */
export type ManifestEntry = { command: string; timeoutMs: number | undefined; env: Record<string, string> };

/** What a shipped manifest says about one event: how long the harness waits, and the env its command sets. */
export type ManifestHook = {
  /** The harness's timeout for this event (manifest seconds, in ms). */
  timeoutMs: number;
  /** Variables the command sets before `node` (e.g. Codex SessionEnd's TIERGATE_HOOK_DEADLINE_MS=2500). */
  env: Record<string, string>;
  /** False for an event the manifest does not register: it gets the harness's tightest timeout. */
  registered: boolean;
  /** The manifest's command (Copilot's fuzz runs it through bash, as Copilot does). */
  command: string | null;
};

/** Timeouts: seconds in Claude's, Codex's and Cursor's `timeout` and Copilot's `timeoutSec`; ms in Gemini's. */
function entryOf(harness: Harness, e: RawEntry): ManifestEntry {
  const timeoutMs =
    harness === 'gemini'
      ? e.timeout
      : harness === 'copilot'
        ? e.timeoutSec === undefined
          ? undefined
          : e.timeoutSec * 1000
        : e.timeout === undefined
          ? undefined
          : e.timeout * 1000;
  const command = e.command ?? e.bash ?? '';
  return { command, timeoutMs, env: { ...commandEnv(command), ...(e.env ?? {}) } };
}

function manifestEntries(harness: Harness): Map<string, ManifestEntry[]> {
  const m = JSON.parse(MANIFEST[harness]()) as { hooks: Record<string, RawEvent[]> };
  // Claude, Codex and Gemini nest commands under `hooks`; Cursor and Copilot list them directly.
  return new Map(
    Object.entries(m.hooks).map(([event, groups]) => [
      event,
      groups.flatMap((g) => g.hooks ?? [g]).map((e) => entryOf(harness, e)),
    ]),
  );
}

/** The env assignments in front of `node` in a hook command (`A=1 B=2 node ...`; a `[ ... ] || exec node` guard has none). */
function commandEnv(command: string): Record<string, string> {
  const head = command.slice(0, Math.max(0, command.search(/(^|\s)node\s/)));
  return Object.fromEntries(
    [...head.matchAll(/(?:^|\s)([A-Z_][A-Z0-9_]*)=([^\s"'$]+)(?=\s|$)/g)].map((m) => [m[1]!, m[2]!]),
  );
}

/** Read from the manifests we ship, so a fuzz bound follows them (SessionEnd is 5 s for Claude, 3 s for Codex). */
export function manifestHook(harness: Harness, event: string): ManifestHook {
  const entries = manifestEntries(harness);
  const mine = entries.get(event);
  if (!mine?.length) {
    const all = [...entries.values()]
      .flat()
      .map((e) => e.timeoutMs)
      .filter((t): t is number => typeof t === 'number');
    if (!all.length) throw new Error(`${harness} manifest: no timeouts`);
    return { timeoutMs: Math.min(...all), env: {}, registered: false, command: null };
  }
  const timeouts = mine.map((e) => e.timeoutMs);
  if (timeouts.some((t) => typeof t !== 'number'))
    throw new Error(`${harness} manifest ${event}: an entry has no timeout`);
  return {
    timeoutMs: Math.min(...(timeouts as number[])),
    env: Object.assign({}, ...mine.map((e) => e.env)),
    registered: true,
    command: mine[0]!.command,
  };
}

const BASE_FIXTURE: Record<Harness, Record<string, string>> = {
  claude: {
    PreToolUse: 'claude/PreToolUse.basic.json',
    PostToolUse: 'claude/PostToolUse.basic.json',
    SubagentStop: 'claude/SubagentStop.basic.json',
    SessionStart: 'claude/SessionStart.basic.json',
    SessionEnd: 'claude/SessionEnd.basic.json',
  },
  codex: {
    PreToolUse: 'codex/PreToolUse.basic.json',
    SessionStart: 'codex/SessionStart.basic.json',
    SubagentStop: 'codex/SubagentStop.basic.json',
    SessionEnd: 'codex/SessionEnd.basic.json',
  },
  cursor: {
    preToolUse: 'cursor/preToolUse.task.json',
    subagentStart: 'cursor/subagentStart.basic.json',
    subagentStop: 'cursor/subagentStop.completed.json',
  },
  gemini: {
    BeforeTool: 'gemini/BeforeTool.basic-invoke_agent.json',
    AfterTool: 'gemini/AfterTool.basic-invoke_agent.json',
    SessionStart: 'gemini/SessionStart.basic.json',
    SessionEnd: 'gemini/SessionEnd.basic.json',
  },
  copilot: {
    preToolUse: 'copilot/preToolUse.basic-task.json',
    subagentStop: 'copilot/subagentStop.basic.json',
    sessionStart: 'copilot/sessionStart.basic.json',
    sessionEnd: 'copilot/sessionEnd.basic.json',
  },
  grok: {
    PreToolUse: 'grok/PreToolUse.json',
    PostToolUse: 'grok/PostToolUse.json',
    SubagentStop: 'grok/SubagentStop.json',
    SessionStart: 'grok/SessionStart.json',
    SessionEnd: 'grok/SessionEnd.parent.json',
  },
};

/** The base payload for an event, with paths pointing into `dir` (the Claude parent transcript is staged there). */
export function basePayload(harness: Harness, event: string, dir: string): Record<string, unknown> {
  const p = fixturePayload(BASE_FIXTURE[harness][event]!);
  p.cwd = dir;
  if (harness === 'claude' && event === 'PreToolUse') {
    const to = join(dir, 'parent.jsonl');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(FIXTURES, 'claude/transcripts/basic.parent.at-PreToolUse.jsonl'), to);
    p.transcript_path = to;
  }
  // Grok's session folder as it would be, empty: its files are read beside transcriptPath (never the capture's).
  if (harness === 'grok' && 'transcriptPath' in p) p.transcriptPath = join(dir, 'session', 'updates.jsonl');
  return p;
}

type Path = (string | number)[];

function leafPaths(v: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (prefix.length) out.push(prefix);
  if (v && typeof v === 'object') {
    for (const [k, c] of Object.entries(v as Record<string, unknown>))
      leafPaths(c, [...prefix, Array.isArray(v) ? Number(k) : k], out);
  }
  return out;
}

function setAt(root: unknown, path: Path, value: unknown | typeof DELETE): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let cur = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) {
    const next = cur[k];
    if (!next || typeof next !== 'object') return copy;
    cur = next as Record<string | number, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === DELETE) {
    if (Array.isArray(cur)) cur.splice(Number(last), 1);
    else delete cur[last];
  } else cur[last] = value;
  return copy;
}
const DELETE = Symbol('delete');

const enc = (s: string) => Buffer.from(s, 'utf8');
const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 20 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.constant(''),
  fc.constant(-1),
  fc.constant(1e308),
  fc.constant('\u0000'),
  fc.constant('../../../etc/passwd'),
  fc.constant('<synthetic>'),
);
const BOMS = [
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf]),
  Buffer.from([0xff, 0xfe]),
  Buffer.from([0xfe, 0xff]),
];
const INVALID_UTF8 = [
  Buffer.from([0xff]),
  Buffer.from([0xc3]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
  Buffer.from([0x80, 0x80]),
];

/** Deeply nested JSON as text (never built as objects: the generator must not overflow its own stack). */
function nested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

export type FuzzCase = { kind: string; input: Buffer };

/** Malformed stdin for one event: a labelled buffer. `maxHuge` bounds the huge-string size (in-process vs process). */
export function malformed(base: Record<string, unknown>, opts: { maxHuge?: number } = {}): fc.Arbitrary<FuzzCase> {
  const paths = leafPaths(base);
  const path = fc.constantFrom(...paths);
  const text = JSON.stringify(base);
  const maxHuge = opts.maxHuge ?? 1536 * 1024;
  const caseOf =
    (kind: string) =>
    (input: Buffer): FuzzCase => ({ kind, input });
  return fc.oneof(
    // Wrong root: any JSON value at all.
    fc.jsonValue({ maxDepth: 4 }).map((v) => caseOf('any-json')(enc(JSON.stringify(v) ?? 'null'))),
    // Missing fields.
    fc
      .uniqueArray(path, { minLength: 1, maxLength: 4 })
      .map((ps) =>
        caseOf('missing-fields')(enc(JSON.stringify(ps.reduce<unknown>((o, p) => setAt(o, p, DELETE), base)))),
      ),
    // Wrong types.
    fc
      .array(fc.tuple(path, wrongType), { minLength: 1, maxLength: 4 })
      .map((edits) =>
        caseOf('wrong-types')(enc(JSON.stringify(edits.reduce<unknown>((o, [p, v]) => setAt(o, p, v), base)))),
      ),
    // Huge strings (some past the runner's 1 MiB stdin cap).
    fc
      .tuple(path, fc.integer({ min: 16 * 1024, max: maxHuge }), fc.constantFrom('x', 'é', '\u{1F600}', '\\', '"'))
      .map(([p, n, ch]) =>
        caseOf('huge-string')(enc(JSON.stringify(setAt(base, p, ch.repeat(Math.ceil(n / Buffer.byteLength(ch))))))),
      ),
    // Deep nesting, at the root or in a field.
    fc
      .tuple(
        fc.option(path, { nil: undefined }),
        fc.integer({ min: 100, max: 100_000 }),
        fc.constantFrom<'array' | 'object'>('array', 'object'),
      )
      .map(([p, depth, kind]) => {
        if (!p) return caseOf('deep-nesting-root')(enc(nested(depth, kind)));
        const marker = '"__NEST__"';
        return caseOf('deep-nesting-field')(
          enc(JSON.stringify(setAt(base, p, '__NEST__')).replace(marker, nested(depth, kind))),
        );
      }),
    // Truncated JSON.
    fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((n) => caseOf('truncated')(enc(text.slice(0, n)))),
    // Invalid UTF-8 bytes spliced into the text (inside strings and between tokens).
    fc
      .array(fc.tuple(fc.integer({ min: 0, max: text.length }), fc.constantFrom(...INVALID_UTF8)), {
        minLength: 1,
        maxLength: 5,
      })
      .map((cuts) => {
        const raw = enc(text);
        const sorted = [...cuts].sort((a, b) => a[0] - b[0]);
        const parts: Buffer[] = [];
        let at = 0;
        for (const [pos, bytes] of sorted) {
          const p = Math.min(raw.length, pos);
          parts.push(raw.subarray(at, p), bytes);
          at = p;
        }
        parts.push(raw.subarray(at));
        return caseOf('invalid-utf8')(Buffer.concat(parts));
      }),
    // A BOM (UTF-8, doubled, or UTF-16 which is not ours to strip) in front of a malformed body.
    fc
      .tuple(fc.constantFrom(...BOMS), fc.integer({ min: 0, max: Math.max(0, text.length - 2) }))
      .map(([bom, n]) => caseOf('bom-truncated')(Buffer.concat([bom, enc(text.slice(0, n))]))),
    fc
      .tuple(fc.constantFrom(...BOMS.slice(1)), fc.constant(text))
      .map(([bom, t]) => caseOf('foreign-bom')(Buffer.concat([bom, enc(t)]))),
    // Random bytes and near-empty inputs.
    fc.uint8Array({ maxLength: 2048 }).map((b) => caseOf('random-bytes')(Buffer.from(b))),
    fc
      .constantFrom('', ' ', '\n', 'null', '[]', '""', '0', 'true', '{}', '{"', '\uFEFF', '\uFEFF{}')
      .map((s) => caseOf('tiny')(enc(s))),
  );
}

/**
 * A mutant that is still a well-formed Claude dispatch naming no model (tool_input.model absent or null: the
 * documented shape, see claude/PreToolUse.nomodel.json) legitimately gets the policy's default tier.
 */
export function namesNoModel(harness: Harness, event: string, input: Buffer): boolean {
  if (harness !== 'claude' || event !== 'PreToolUse') return false;
  try {
    const v = JSON.parse(input.toString('utf8').replace(/^\uFEFF/, '')) as {
      tool_name?: unknown;
      tool_input?: Record<string, unknown>;
    };
    return (
      (v.tool_name === 'Agent' || v.tool_name === 'Task') &&
      !!v.tool_input &&
      typeof v.tool_input === 'object' &&
      v.tool_input.model == null
    );
  } catch {
    return false;
  }
}

/** The default-tier correction (DEFAULT_POLICY.defaultTier "standard" -> Claude's "sonnet") and nothing else. */
export function isDefaultTierCorrection(stdout: string | undefined): boolean {
  try {
    const v = JSON.parse(stdout ?? '') as {
      hookSpecificOutput?: { updatedInput?: { model?: unknown }; permissionDecision?: unknown };
    };
    return (
      v.hookSpecificOutput?.updatedInput?.model === 'sonnet' && v.hookSpecificOutput.permissionDecision === undefined
    );
  } catch {
    return false;
  }
}

/** What the hook may print for a malformed payload. Returns why an answer is a decision, or null when it is not. */
export function decisionIn(harness: Harness, stdout: string | undefined, exitCode: number | undefined): string | null {
  if ((exitCode ?? 0) !== 0) return `exit code ${exitCode}`;
  if (!stdout) return null;
  if (harness === 'cursor') {
    // Cursor's documented allow (permission hooks) and the empty object (subagentStop): the only acceptable answers.
    return stdout === '{"permission":"allow"}\n' || stdout === '{}\n' ? null : `cursor answer ${stdout.slice(0, 200)}`;
  }
  let v: unknown;
  try {
    v = JSON.parse(stdout);
  } catch {
    return `non-JSON output ${stdout.slice(0, 200)}`;
  }
  // Context for the model (SessionStart) is not a decision; every other key could be one.
  const allowed = new Set(['hookSpecificOutput', 'hookEventName', 'additionalContext']);
  const bad: string[] = [];
  const walk = (o: unknown, depth: number) => {
    if (!o || typeof o !== 'object' || depth > 2) return;
    for (const [k, c] of Object.entries(o as Record<string, unknown>)) {
      if (!allowed.has(k)) bad.push(k);
      else if (k !== 'additionalContext') walk(c, depth + 1);
    }
  };
  walk(v, 0);
  return bad.length ? `decision keys ${bad.join(',')} in ${stdout.slice(0, 200)}` : null;
}

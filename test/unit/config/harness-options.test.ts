/**
 * Policy keys a harness owns (HarnessDescriptor.options): config/ validates, defaults and judges each one from its
 * declaration, through the registry, never by name. Walks every declared key, so a harness adding one is covered.
 */
import { describe, expect, it } from 'vitest';
import { applyLayer, DEFAULT_POLICY } from '../../../src/config/load.js';
import { PROJECT_RULES } from '../../../src/config/project-layer.js';
import { HARNESS_IDS } from '../../../src/contracts/harness-ids.js';
import { CLAUDE_PROVIDERS, claudeProvider } from '../../../src/descriptors/claude.js';
import { DESCRIPTORS, HARNESS_OPTIONS } from '../../../src/descriptors/index.js';

const owner = (key: string) => HARNESS_IDS.find((h) => Object.hasOwn(DESCRIPTORS[h].options ?? {}, key));
const project = { trusted: false, userFile: '/u/config.json' };

describe('harness-owned policy keys', () => {
  it('Claude Code owns claudeProvider and Codex codexRewrite; nothing else declares one', () => {
    expect(Object.fromEntries(Object.keys(HARNESS_OPTIONS).map((k) => [k, owner(k)]))).toEqual({
      claudeProvider: 'claude',
      codexRewrite: 'codex',
    });
    expect(HARNESS_OPTIONS.claudeProvider!.values).toBe(CLAUDE_PROVIDERS);
  });

  for (const [key, o] of Object.entries(HARNESS_OPTIONS)) {
    describe(key, () => {
      it('is named after its harness, and its default is one of its values and the built-in policy', () => {
        expect(key.startsWith(owner(key)!)).toBe(true);
        expect((o.values as readonly unknown[]).includes(o.default)).toBe(true);
        expect((DEFAULT_POLICY as Record<string, unknown>)[key]).toBe(o.default);
      });

      it('every declared value loads; anything else is refused with a diagnostic naming the key', () => {
        for (const v of o.values)
          expect(applyLayer(DEFAULT_POLICY, { [key]: v }, 'u').policy).toMatchObject({ [key]: v });
        const bad = applyLayer(DEFAULT_POLICY, { [key]: 'not-a-value-7' }, 'u');
        expect(bad.diagnostics).toEqual([expect.stringContaining(`u: invalid '${key}'`)]);
        expect((bad.policy as Record<string, unknown>)[key]).toBe(o.default);
      });

      it('a project file (not trusted) moves it only as the harness declared', () => {
        expect(PROJECT_RULES[key]!.kind).toBe(o.project.kind);
        for (const [i, from] of o.values.entries())
          for (const [j, to] of o.values.entries()) {
            if (i === j) continue;
            const user = { ...DEFAULT_POLICY, [key]: from };
            const r = applyLayer(user, { [key]: to }, 'p', project);
            const applied = o.project.kind === 'tighten' && j > i;
            expect((r.policy as Record<string, unknown>)[key]).toBe(applied ? to : from);
            expect(r.effects).toEqual([expect.objectContaining({ key, applied })]);
          }
      });
    });
  }

  it("Claude Code's accessor reads its key, and falls back to anthropic for anything not in its list", () => {
    expect(claudeProvider({ claudeProvider: 'vertex' })).toBe('vertex');
    expect(claudeProvider({ claudeProvider: 'mantle' })).toBe('anthropic');
    expect(claudeProvider({})).toBe('anthropic');
  });

  it('the Codex capability follows its own key only', () => {
    expect(DESCRIPTORS.codex.capability({ codexRewrite: true }).canRewrite).toBe(true);
    expect(DESCRIPTORS.codex.capability({ codexRewrite: 'yes' }).canRewrite).toBe(false);
    expect(DESCRIPTORS.codex.capability({}).canRewrite).toBe(false);
  });
});

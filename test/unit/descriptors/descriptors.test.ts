import { describe, expect, it } from 'vitest';
import { HARNESS_IDS } from '../../../src/contracts/harness.js';
import { DESCRIPTORS } from '../../../src/descriptors/index.js';
import { capabilityFor } from '../../../src/adapters/capabilities.js';
import { CLAUDE_MODEL_ALIASES } from '../../../src/descriptors/claude.js';
import { DEFAULT_POLICY } from '../../../src/config/defaults.js';

describe('harness descriptors (the light half of the registry)', () => {
  it('has one descriptor per harness id, under its own id', () => {
    expect(Object.keys(DESCRIPTORS).sort()).toEqual([...HARNESS_IDS].sort());
    for (const id of HARNESS_IDS) expect(DESCRIPTORS[id].id).toBe(id);
  });

  it('gives each harness the capability it was established with', () => {
    const off = { codexRewrite: false };
    expect(capabilityFor('claude', off)).toEqual({
      canRewrite: true,
      rewriteField: 'model',
      rewriteKind: 'model',
      legalValues: [...CLAUDE_MODEL_ALIASES],
      canDeny: true,
    });
    expect(capabilityFor('codex', off)).toEqual({
      canRewrite: false,
      rewriteField: null,
      rewriteKind: 'model',
      legalValues: null,
      canDeny: true,
    });
    expect(capabilityFor('codex', { codexRewrite: true })).toMatchObject({ canRewrite: true, rewriteField: 'model' });
    expect(capabilityFor('cursor', { codexRewrite: true })).toEqual({
      canRewrite: false,
      rewriteField: null,
      rewriteKind: 'model',
      legalValues: null,
      canDeny: true,
    });
    expect(capabilityFor('opencode', off)).toEqual({
      canRewrite: true,
      rewriteField: 'subagent_type',
      rewriteKind: 'agent',
      legalValues: null,
      canDeny: true,
    });
    expect(capabilityFor('pi', off)).toEqual({
      canRewrite: true,
      rewriteField: 'agent',
      rewriteKind: 'agent',
      legalValues: null,
      canDeny: true,
    });
    expect(capabilityFor('gemini', off)).toEqual({
      canRewrite: true,
      rewriteField: 'agent_name',
      rewriteKind: 'agent',
      legalValues: null,
      canDeny: true,
    });
  });

  it('names the dispatch events of the harnesses with a command hook, and only those', () => {
    const events = Object.fromEntries(HARNESS_IDS.map((h) => [h, DESCRIPTORS[h].dispatchEvents]));
    expect(events).toEqual({
      claude: ['PreToolUse'],
      codex: ['PreToolUse', 'ChildToolUse'],
      cursor: ['preToolUse', 'subagentStart'],
      opencode: [],
      pi: [],
      gemini: ['BeforeTool'],
      copilot: ['preToolUse'],
      grok: ['PreToolUse'],
      hermes: ['pre_tool_call'],
    });
  });

  // The report counts these runs as "usage not reported" from the registry (report/query.ts `usage_unreported`), summing
  // the rollups by their harness key: no ledger column names a harness since ledger migration 11.
  it('says which harnesses report no usage (the report counts their runs unpriced)', () => {
    expect(HARNESS_IDS.filter((h) => !DESCRIPTORS[h].reportsUsage)).toEqual(['cursor']);
  });

  it('gives the built-in policy a tier map per harness, from its descriptor, as its own copy', () => {
    expect(Object.keys(DEFAULT_POLICY.tiers).sort()).toEqual([...HARNESS_IDS].sort());
    expect(DEFAULT_POLICY.tiers.claude).toEqual({ cheap: 'haiku', standard: 'sonnet', premium: 'opus' });
    expect(DEFAULT_POLICY.tiers.codex).toEqual({ cheap: 'gpt-6-luna', standard: 'gpt-6-sol', premium: 'gpt-6-astra' });
    expect(DEFAULT_POLICY.tiers.cursor).toEqual({});
    for (const h of HARNESS_IDS) {
      expect(DEFAULT_POLICY.tiers[h]).toEqual(DESCRIPTORS[h].defaultTiers);
      expect(DEFAULT_POLICY.tiers[h]).not.toBe(DESCRIPTORS[h].defaultTiers);
    }
  });
});

/** The agents Gemini CLI 0.61.0 would register, as tiergate finds them (src/adapters/gemini/agents.ts). */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiDir, loadAgents } from '../../../../src/adapters/gemini/agents.js';
import { sandbox, writeAgent } from './support.js';

describe('gemini agent lookup', () => {
  it('reads only regular *.md files not starting with _ (Gemini lists entries and skips links)', () => {
    const sb = sandbox();
    const dir = join(sb.home, '.gemini', 'agents');
    const real = writeAgent(join(sb.dir, 'elsewhere'), 'linked', 'gemini-3-pro-preview');
    symlinkSync(real, join(dir, 'linked.md'));
    writeAgent(dir, '_draft', 'gemini-3-pro-preview');
    writeFileSync(join(dir, 'notes.txt'), '---\nname: notes\ndescription: x\nmodel: m\n---\n');
    writeAgent(dir, 'plain', 'gemini-2.5-flash');
    const agents = loadAgents(sb.env, sb.project, 'gemini-2.5-pro');
    expect(agents.get('linked')).toBeNull();
    expect(agents.get('_draft')).toBeNull();
    expect(agents.get('notes')).toBeNull();
    expect(agents.get('plain')).toMatchObject({ model: 'gemini-2.5-flash', source: 'user', restrictsTools: false });
  });

  it("`kind: remote` (an A2A agent) has no model; a top-level `tools:` key restricts the child's tools", () => {
    const sb = sandbox();
    const dir = join(sb.home, '.gemini', 'agents');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'a2a.md'),
      '---\nname: a2a\ndescription: x\nkind: "remote" # A2A\nagent_card_url: https://example.invalid\n---\n',
    );
    writeFileSync(
      join(dir, 'tooled.md'),
      '---\nname: tooled\ndescription: x\nmodel: gemini-2.5-flash\ntools:\n  - read_file\n---\n',
    );
    const agents = loadAgents(sb.env, sb.project, 'gemini-2.5-pro');
    expect(agents.get('a2a')).toMatchObject({ model: null });
    expect(agents.get('tooled')).toMatchObject({ model: 'gemini-2.5-flash', restrictsTools: true });
  });

  it("the first definition of a name wins: a user agent cannot replace a built-in; a user agent beats an extension's", () => {
    const sb = sandbox();
    writeAgent(join(sb.home, '.gemini', 'agents'), 'generalist', 'gemini-3-pro-preview');
    writeAgent(join(sb.home, '.gemini', 'agents'), 'shared', 'gemini-2.5-flash');
    writeAgent(join(sb.home, '.gemini', 'extensions', 'ext', 'agents'), 'shared', 'gemini-3-pro-preview');
    const agents = loadAgents(sb.env, sb.project, 'gemini-2.5-pro');
    expect(agents.get('generalist')).toMatchObject({ model: 'inherit', source: 'built-in' });
    expect(agents.get('shared')).toMatchObject({ model: 'gemini-2.5-flash', source: 'user' });
  });

  it("a linked extension's agents are read from its source; settings may disable an agent", () => {
    const sb = sandbox();
    const src = join(sb.dir, 'linked-ext');
    writeAgent(join(src, 'agents'), 'from-link', 'gemini-2.5-flash');
    mkdirSync(join(sb.home, '.gemini', 'extensions', 'lnk'), { recursive: true });
    writeFileSync(
      join(sb.home, '.gemini', 'extensions', 'lnk', '.gemini-extension-install.json'),
      JSON.stringify({ source: src, type: 'link' }),
    );
    writeFileSync(
      join(sb.home, '.gemini', 'settings.json'),
      JSON.stringify({ agents: { overrides: { 'from-link': { enabled: false } } } }),
    );
    expect(loadAgents(sb.env, sb.project, null).get('from-link')).toBeNull();
    writeFileSync(join(sb.home, '.gemini', 'settings.json'), '{}');
    expect(loadAgents(sb.env, sb.project, null).get('from-link')).toMatchObject({
      model: 'gemini-2.5-flash',
      source: 'extension',
    });
  });

  it("codebase_investigator's model follows the session model's family, unknown when that is", () => {
    const sb = sandbox();
    expect(loadAgents(sb.env, null, 'gemini-2.5-pro').get('codebase_investigator')).toMatchObject({
      model: 'gemini-2.5-pro',
      restrictsTools: true,
    });
    expect(loadAgents(sb.env, null, 'gemini-3.1-pro-preview-customtools').get('codebase_investigator')!.model).toBe(
      'gemini-3-flash-preview',
    );
    expect(loadAgents(sb.env, null, null).get('codebase_investigator')!.model).toBeNull();
    // Gemini 3 is `gemini-3` then `.`, `-` or the end; a non-Gemini session model counts as modern too.
    const investigator = (parent: string) => loadAgents(sb.env, null, parent).get('codebase_investigator')!.model;
    expect(investigator('gemini-3')).toBe('gemini-3-flash-preview');
    expect(investigator('gemini-3-pro-preview')).toBe('gemini-3-flash-preview');
    expect(investigator('gemini-30-pro')).toBe('gemini-2.5-pro');
    expect(investigator('gemini-2.5-flash')).toBe('gemini-2.5-pro');
    expect(investigator('gpt-5.4')).toBe('gemini-3-flash-preview');
  });

  it('GEMINI_CLI_HOME replaces the home directory', () => {
    expect(geminiDir({ HOME: '/h', GEMINI_CLI_HOME: '/g' })).toBe('/g/.gemini');
    expect(geminiDir({ HOME: '/h' })).toBe('/h/.gemini');
  });
});

/**
 * Which model Copilot CLI runs a `task` child on without tiergate (agents.ts): the frontmatter forms and the lookup
 * order seen on 1.0.102 under BYOK (docs/copilot-cli.md): user agents beat the project's and the built-ins, the
 * project's .github/agents beat its .claude/agents, a name is the frontmatter's else the file's.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeAgentFs } from '../../../../src/agent-files/fs-node.js';
import {
  lookupCopilotAgent,
  parseCopilotAgentHead,
  resolveCopilotChild,
  type AgentPlaces,
} from '../../../../src/adapters/copilot/agents.js';
import { sandbox, writeAgent } from './support.js';

const head = (front: string) => parseCopilotAgentHead(`---\n${front}\n---\nbody\n`);

describe('copilot agent frontmatter', () => {
  it('reads name and model in the forms Copilot takes', () => {
    expect(head('name: pricey\nmodel: claude-opus-4.8')).toEqual({
      name: 'pricey',
      model: { kind: 'one', value: 'claude-opus-4.8' },
    });
    expect(head('name: "q"\nmodel: \'gpt-5.4\'')).toEqual({ name: 'q', model: { kind: 'one', value: 'gpt-5.4' } });
    expect(head('model: inherit')?.model).toEqual({ kind: 'inherit' });
    expect(head('model: [a, "b"]')?.model).toEqual({ kind: 'list', values: ['a', 'b'] });
    expect(head('model:\n  - a\n  - b')?.model).toEqual({ kind: 'list', values: ['a', 'b'] });
    expect(head('description: x')).toEqual({ name: null, model: { kind: 'none' } });
    expect(head('model: gpt-5.4 # the cheap one')?.model).toEqual({ kind: 'one', value: 'gpt-5.4' });
  });

  it('says unreadable rather than guess', () => {
    for (const f of ['model: [a, b', 'model: |\n  a', 'model:\n  key: v', 'model: [a, ]x'])
      expect(head(f)?.model.kind).toBe('unreadable');
    expect(parseCopilotAgentHead('no frontmatter')).toBeNull();
  });
});

describe('copilot agent lookup and the child chain', () => {
  const setup = () => {
    const sb = sandbox();
    const places: AgentPlaces = { copilotHome: sb.copilotHome, projectDir: join(sb.project, 'sub'), home: sb.home };
    const lookup = (name: string) => lookupCopilotAgent(nodeAgentFs, name, places);
    const child = (agentType: string, byok: boolean | null = true, callModel: string | null = null) =>
      resolveCopilotChild({ agentType, callModel, byok, lookup });
    return { sb, places, lookup, child };
  };

  it('user > project .github > project .claude, nested folders, names from frontmatter else file', async () => {
    const { sb, child } = setup();
    writeAgent(join(sb.copilotHome, 'agents'), 'both.agent.md', { name: 'both', model: 'model-user' });
    writeAgent(join(sb.project, '.github/agents'), 'both.agent.md', { name: 'both', model: 'model-project' });
    writeAgent(join(sb.project, '.github/agents'), 'two.agent.md', { name: 'two', model: 'model-github' });
    writeAgent(join(sb.project, '.claude/agents'), 'two.md', { name: 'two', model: 'model-claude' });
    writeAgent(join(sb.project, '.claude/agents'), 'cl.md', { name: 'cl', model: 'model-claude-only' });
    writeAgent(join(sb.copilotHome, 'agents/deep/er'), 'x.agent.md', { name: 'nested', model: 'model-nested' });
    writeAgent(join(sb.copilotHome, 'agents'), 'foo.agent.md', { name: 'bar', model: 'model-bar' });
    writeAgent(join(sb.copilotHome, 'agents'), 'noname.agent.md', { description: 'd', model: 'model-noname' });
    writeAgent(join(sb.copilotHome, 'agents'), 'explore.agent.md', { name: 'explore', model: 'model-my-explore' });
    const model = async (n: string) => (await child(n)).agentModel;
    expect(await model('both')).toBe('model-user');
    expect(await model('two')).toBe('model-github');
    expect(await model('cl')).toBe('model-claude-only');
    expect(await model('nested')).toBe('model-nested');
    expect(await model('bar')).toBe('model-bar');
    expect((await child('foo')).unknown).toMatch(/defined nowhere tiergate looks/);
    expect(await model('noname')).toBe('model-noname');
    // A user agent shadows the built-in of its name.
    expect(await model('explore')).toBe('model-my-explore');
    expect((await child('both')).agentModelFrom).toBe(join(sb.copilotHome, 'agents', 'both.agent.md'));
  });

  it("the call's model wins without reading any agent file", async () => {
    const { child } = setup();
    let looked = 0;
    const r = await resolveCopilotChild({
      agentType: 'pricey',
      callModel: 'gpt-5.4-mini',
      byok: null,
      lookup: async () => (looked++, { kind: 'not-found', searched: [] }),
    });
    expect(r).toEqual({ requestedModel: 'gpt-5.4-mini', agentModel: null, agentModelFrom: null, unknown: null });
    expect(looked).toBe(0);
    expect((await child('general-purpose', true, 'x')).requestedModel).toBe('x');
  });

  it('inherit and no model run on the parent; a list is its first entry under BYOK only', async () => {
    const { sb, child } = setup();
    writeAgent(join(sb.copilotHome, 'agents'), 'inh.agent.md', { name: 'inh', model: 'inherit' });
    writeAgent(join(sb.copilotHome, 'agents'), 'none.agent.md', { name: 'none', description: 'd' });
    writeAgent(join(sb.copilotHome, 'agents'), 'lst.agent.md', { name: 'lst', model: '[model-a, model-b]' });
    expect(await child('inh')).toEqual({ requestedModel: null, agentModel: null, agentModelFrom: null, unknown: null });
    expect(await child('none')).toEqual({
      requestedModel: null,
      agentModel: null,
      agentModelFrom: null,
      unknown: null,
    });
    expect((await child('lst', true)).agentModel).toBe('model-a');
    expect((await child('lst', false)).unknown).toMatch(/lists models/);
    expect((await child('lst', null)).unknown).toMatch(/lists models/);
  });

  it("built-ins: the parent's model under BYOK (seen); a built-in with its own list is unknown otherwise", async () => {
    const { child } = setup();
    for (const b of ['explore', 'task', 'research', 'general-purpose'])
      expect((await child(b, true)).unknown).toBeNull();
    expect((await child('general-purpose', null)).unknown).toBeNull();
    expect((await child('explore', false)).unknown).toMatch(/gpt-5.6-luna, gpt-5.4-mini/);
    expect((await child('research', null)).unknown).toMatch(/claude-sonnet-5/);
  });

  it('stops at the git root and never reads above it', async () => {
    const { sb, places } = setup();
    writeAgent(join(sb.root, '.github/agents'), 'above.agent.md', { name: 'above', model: 'm' });
    expect((await lookupCopilotAgent(nodeAgentFs, 'above', places)).kind).toBe('not-found');
  });
});

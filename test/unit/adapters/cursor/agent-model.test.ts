/**
 * Cursor: the model a custom subagent runs on, from its agent definition (DOCUMENTATION ONLY: cursor.md §5-6, no Cursor
 * binary was run). Payloads are the documented captures in test/fixtures/cursor; the agent files are written here.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentFrontmatter,
  cursorAgentDef,
  observeSubagentStart,
  observeTask,
} from '../../../../src/adapters/cursor/observe.js';
import { DEFAULT_POLICY } from '../../../../src/config/defaults.js';
import { DispatchObservationSchema } from '../../../../src/contracts/observation.js';
import { decide } from '../../../../src/routing-engine/decide.js';
import { priceRow, testLookup } from '../../routing-engine/price-table.js';
import { fixturePayload } from '../../../support/fixtures.js';

const fixture = (name: string): Record<string, unknown> => fixturePayload(`cursor/${name}.json`);
const row = (id: string, input: string, output: string) => priceRow(id, 'anthropic', input, output, null);
const lookup = testLookup({
  'claude-opus-5': row('claude-opus-5', '5', '25'),
  'claude-haiku-4-5': row('claude-haiku-4-5', '1', '5'),
  'claude-sonnet-4-5': row('claude-sonnet-4-5', '3', '15'),
});

function dirs() {
  const root = mkdtempSync(join(tmpdir(), 'tg-cursor-agents-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.cursor', 'agents'), { recursive: true });
  mkdirSync(join(project, '.cursor', 'agents'), { recursive: true });
  const agent = (dir: string, file: string, fm: string) => {
    const p = join(dir, '.cursor', 'agents', file);
    writeFileSync(p, `---\n${fm}\n---\nYou are an agent.\n`);
    return p;
  };
  return { home, project, env: { HOME: home }, agent };
}

/** The documented inherit Task payload (model "inherit", top-level model ""), for a custom subagent type in a project. */
const task = (type: string, project: string, model = 'inherit') => {
  const p = fixture('preToolUse.task-inherit-empty-model');
  return { ...p, cwd: project, tool_input: { ...(p.tool_input as object), subagent_type: type, model } };
};
const parent = { model: 'claude-sonnet-4-5', source: 'earlier-payload' };

describe('Cursor agent definitions (documentation only)', () => {
  it('reads name and model from the frontmatter, quoted or plain, with comments', () => {
    expect(agentFrontmatter('---\nname: "deep-review"\ndescription: d\nmodel: claude-opus-5 # big\n---\nbody')).toEqual(
      { name: 'deep-review', model: 'claude-opus-5' },
    );
    expect(agentFrontmatter("---\r\nmodel: 'fast'\r\n---\r\n")).toEqual({ name: null, model: 'fast' });
    expect(agentFrontmatter('no frontmatter')).toBeNull();
  });

  it("the project's definition over the user's, found by frontmatter name (else the file name); inherit pins nothing", () => {
    const { home, project, env, agent } = dirs();
    agent(home, 'deep-review.md', 'name: deep-review\nmodel: claude-opus-5');
    const proj = agent(project, 'review.md', 'name: deep-review\nmodel: claude-haiku-4-5');
    const userOnly = agent(home, 'helper.md', 'description: no name, file name counts\nmodel: claude-opus-5');
    agent(project, 'plain.md', 'name: plain\nmodel: inherit');
    expect(cursorAgentDef('deep-review', project, env)).toEqual({
      name: 'deep-review',
      model: 'claude-haiku-4-5',
      from: proj,
    });
    expect(cursorAgentDef('helper', project, env)).toEqual({ name: 'helper', model: 'claude-opus-5', from: userOnly });
    expect(cursorAgentDef('plain', project, env)).toMatchObject({ model: null });
    expect(cursorAgentDef('nosuch', project, env)).toBeNull();
    expect(cursorAgentDef('../etc/passwd', project, env)).toBeNull();
  });

  it("a FIFO under an agent's name never stops the lookup", () => {
    const { home, project, env, agent } = dirs();
    execFileSync('mkfifo', [join(project, '.cursor', 'agents', 'pricey.md')]);
    const user = agent(home, 'pricey.md', 'name: pricey\nmodel: claude-opus-5');
    expect(cursorAgentDef('pricey', project, env)).toEqual({ name: 'pricey', model: 'claude-opus-5', from: user });
  });
});

describe('Cursor dispatch: a custom subagent on a pricier model than the parent', () => {
  it("Task with model inherit: decided on the agent's model and denied, the retry naming the agent file", () => {
    const { project, env, agent } = dirs();
    const file = agent(project, 'deep-review.md', 'name: deep-review\nmodel: claude-opus-5');
    const obs = observeTask(task('deep-review', project), parent, 1, env)!;
    DispatchObservationSchema.parse(obs);
    expect(obs).toMatchObject({
      requestedModel: null,
      requestedAgent: 'deep-review',
      agentModel: 'claude-opus-5',
      agentModelFrom: file,
    });
    const d = decide(obs, DEFAULT_POLICY, lookup);
    expect(d).toMatchObject({ action: 'deny', reason: 'over-ceiling-denied' });
    expect(d.action === 'deny' && d.message).toMatch(
      /^tiergate: agent deep-review runs on claude-opus-5 \(from .*deep-review\.md\), which costs more than your own model claude-sonnet-4-5/,
    );
  });

  it("the call's own model wins over the agent's (no file read), and a cheaper agent is allowed", () => {
    const { project, env, agent } = dirs();
    agent(project, 'deep-review.md', 'name: deep-review\nmodel: claude-opus-5');
    agent(project, 'quick.md', 'name: quick\nmodel: claude-haiku-4-5');
    expect(observeTask(task('deep-review', project, 'claude-haiku-4-5'), parent, 1, env)).toMatchObject({
      requestedModel: 'claude-haiku-4-5',
      agentModel: null,
    });
    const quick = observeTask(task('quick', project), parent, 1, env)!;
    expect(decide(quick, DEFAULT_POLICY, lookup)).toMatchObject({ action: 'allow', reason: 'within-ceiling' });
  });

  it('subagentStart with subagent_model inherit reads the same definition; built-in types without a file inherit', () => {
    const { project, env, agent } = dirs();
    const file = agent(project, 'explore.md', 'name: explore\nmodel: claude-opus-5');
    const start = { ...fixture('subagentStart.basic'), cwd: project };
    expect(observeSubagentStart(start, parent, 1, env)).toMatchObject({
      requestedModel: null,
      agentModel: 'claude-opus-5',
      agentModelFrom: file,
    });
    const other = dirs();
    const builtin = observeSubagentStart(
      { ...fixture('subagentStart.basic'), cwd: other.project },
      parent,
      1,
      other.env,
    );
    expect(builtin).toMatchObject({ agentModel: null, agentModelFrom: null });
    expect(decide(builtin, DEFAULT_POLICY, lookup).action).toBe('allow');
  });
});

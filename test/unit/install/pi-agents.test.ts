/**
 * `tiergate install pi` writes tier agent files from tiers.pi (the only way a pi correction has somewhere to go),
 * never over a user's own file, and uninstall removes exactly the files it wrote, only while unchanged.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clearPiAgentCache, loadPiAgents } from '../../../src/adapters/pi/agents.js';
import { install, uninstall } from '../../../src/cli/install/apply.js';
import { agentFile, agentText, MARKER } from '../../../src/adapters/pi/install-agents.js';
import { checkPiAgents } from '../../../src/adapters/pi/doctor.js';
import { sandbox } from './support.js';

const TIERS = { cheap: 'fake/small', standard: 'fake/parent', premium: 'fake/big' };

function put(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function withTiers(tiers: Record<string, string> | null = TIERS) {
  const s = sandbox();
  if (tiers) put(join(s.ctx.env.TIERGATE_HOME!, 'config', 'config.json'), JSON.stringify({ tiers: { pi: tiers } }));
  return s;
}

const agentsIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);

describe('install pi: tier agent files', () => {
  it("writes one agent per mapped tier with pi's frontmatter; the adapter reads them back as tier agents", () => {
    const { ctx, root } = withTiers();
    ctx.env.PI_CODING_AGENT_DIR = join(root, 'pi-agent');
    const [row] = install(ctx, ['pi'], { dryRun: false, run: false });
    expect(row!.status).toBe('done');
    const dir = join(root, 'pi-agent', 'agents');
    expect(agentsIn(dir)).toEqual(['tiergate-cheap.md', 'tiergate-premium.md', 'tiergate-standard.md']);
    const cheap = readFileSync(join(dir, 'tiergate-cheap.md'), 'utf8');
    expect(cheap).toMatch(/^---\nname: tiergate-cheap\ndescription: "[^"]+"\nmodel: "fake\/small"\n/);
    expect(cheap).toContain(`\n${MARKER}\n---\n`);
    // The same reader the pi adapter uses on the dispatch path.
    clearPiAgentCache();
    const agents = loadPiAgents({ PI_CODING_AGENT_DIR: join(root, 'pi-agent') }, null);
    expect([...agents.values()].map((a) => [a.name, a.model]).sort()).toEqual([
      ['tiergate-cheap', 'fake/small'],
      ['tiergate-premium', 'fake/big'],
      ['tiergate-standard', 'fake/parent'],
    ]);
    // No tiers.pi.parent: a pi agent without `model:` would run on pi's default model, not the parent's.
    expect(row!.notes.some((n) => /tiergate-parent is not written/.test(n))).toBe(true);
  });

  it('writes tiergate-parent when tiers.pi.parent names a model', () => {
    const { ctx } = withTiers({ cheap: 'fake/small', parent: 'fake/parent' });
    install(ctx, ['pi'], { dryRun: false, run: false });
    expect(readFileSync(agentFile(ctx, 'parent'), 'utf8')).toBe(agentText('parent', 'fake/parent'));
  });

  it('with no tier mapped writes no agent and says that dispatches will be denied', () => {
    const { ctx } = withTiers(null);
    const [row] = install(ctx, ['pi'], { dryRun: false, run: false });
    expect(agentsIn(join(ctx.home, '.pi', 'agent', 'agents'))).toEqual([]);
    expect(row!.notes.some((n) => /denied, not corrected/.test(n))).toBe(true);
  });

  it('--dry-run lists the files and writes nothing', () => {
    const { ctx } = withTiers();
    const [row] = install(ctx, ['pi'], { dryRun: true, run: false });
    expect(row!.status).toBe('planned');
    expect(row!.actions.filter((a) => /^write .*tiergate-\w+\.md \(model /.test(a))).toHaveLength(3);
    expect(existsSync(join(ctx.home, '.pi'))).toBe(false);
  });

  it("leaves a user's own file of that name untouched, says so, and uninstall does not remove it", () => {
    const { ctx } = withTiers();
    const mine = '---\nname: tiergate-cheap\ndescription: mine\nmodel: fake/other\n---\nMy own prompt.\n';
    put(agentFile(ctx, 'cheap'), mine);
    const [row] = install(ctx, ['pi'], { dryRun: false, run: false });
    expect(readFileSync(agentFile(ctx, 'cheap'), 'utf8')).toBe(mine);
    expect(row!.notes.some((n) => n.startsWith(`${agentFile(ctx, 'cheap')} exists and is not tiergate's`))).toBe(true);
    expect(existsSync(agentFile(ctx, 'standard'))).toBe(true);
    expect(checkPiAgents(ctx)).toMatchObject({ status: 'ok' });
    expect(checkPiAgents(ctx).detail).toContain('your own: tiergate-cheap.md (fake/other)');
    uninstall(ctx, ['pi'], { dryRun: false, run: false });
    expect(readFileSync(agentFile(ctx, 'cheap'), 'utf8')).toBe(mine);
    expect(existsSync(agentFile(ctx, 'standard'))).toBe(false);
    expect(existsSync(agentFile(ctx, 'premium'))).toBe(false);
  });

  it('uninstall removes the unchanged files it wrote and leaves a changed one, saying so', () => {
    const { ctx } = withTiers();
    install(ctx, ['pi'], { dryRun: false, run: false });
    const edited = `${readFileSync(agentFile(ctx, 'premium'), 'utf8')}Also: be brief.\n`;
    writeFileSync(agentFile(ctx, 'premium'), edited);
    const [row] = uninstall(ctx, ['pi'], { dryRun: false, run: false });
    expect(row!.status).toBe('done');
    expect(existsSync(agentFile(ctx, 'cheap'))).toBe(false);
    expect(existsSync(agentFile(ctx, 'standard'))).toBe(false);
    expect(readFileSync(agentFile(ctx, 'premium'), 'utf8')).toBe(edited);
    expect(row!.notes).toContain(`${agentFile(ctx, 'premium')} changed since install: left as it is`);
    // settings.json went back too (it did not exist before).
    expect(existsSync(join(ctx.home, '.pi', 'agent', 'settings.json'))).toBe(false);
  });

  it('without an install record, uninstall deletes only marked files identical to what it would write', () => {
    const { ctx } = withTiers();
    install(ctx, ['pi'], { dryRun: false, run: false });
    writeFileSync(join(ctx.env.TIERGATE_HOME!, 'data', 'install-record.json'), '{}');
    const changed = readFileSync(agentFile(ctx, 'standard'), 'utf8').replace('everyday', 'daily');
    writeFileSync(agentFile(ctx, 'standard'), changed);
    const [row] = uninstall(ctx, ['pi'], { dryRun: false, run: false });
    expect(existsSync(agentFile(ctx, 'cheap'))).toBe(false);
    expect(existsSync(agentFile(ctx, 'premium'))).toBe(false);
    expect(readFileSync(agentFile(ctx, 'standard'), 'utf8')).toBe(changed);
    expect(row!.notes.some((n) => n.startsWith(`${agentFile(ctx, 'standard')} changed since tiergate wrote it`))).toBe(
      true,
    );
  });

  it("a changed tier model updates tiergate's file on the next install; uninstall still removes it", () => {
    const { ctx } = withTiers({ cheap: 'fake/small' });
    install(ctx, ['pi'], { dryRun: false, run: false });
    put(
      join(ctx.env.TIERGATE_HOME!, 'config', 'config.json'),
      JSON.stringify({ tiers: { pi: { cheap: 'fake/tiny' } } }),
    );
    expect(checkPiAgents(ctx)).toMatchObject({ status: 'warn' });
    const [row] = install(ctx, ['pi'], { dryRun: false, run: false });
    expect(row!.actions.some((a) => a.startsWith(`update ${agentFile(ctx, 'cheap')}`))).toBe(true);
    expect(readFileSync(agentFile(ctx, 'cheap'), 'utf8')).toBe(agentText('cheap', 'fake/tiny'));
    expect(checkPiAgents(ctx)).toMatchObject({ status: 'ok' });
    uninstall(ctx, ['pi'], { dryRun: false, run: false });
    expect(existsSync(agentFile(ctx, 'cheap'))).toBe(false);
  });

  it("doctor warns when a mapped tier's file is missing", () => {
    const { ctx } = withTiers();
    install(ctx, ['pi'], { dryRun: false, run: false });
    rmSync(agentFile(ctx, 'cheap'));
    const c = checkPiAgents(ctx);
    expect(c.status).toBe('warn');
    expect(c.detail).toMatch(/^missing: tiergate-cheap\.md/);
  });
});

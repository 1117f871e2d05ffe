/**
 * `tiergate install grok`: a hooks file of tiergate's own in Grok's global hooks folder, the shipped hooks-grok.json
 * for a hand install says the same, the user's own hooks files are never touched, and doctor reads it back.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkGrok } from '../../../../src/adapters/grok/doctor.js';
import { GROK_EVENTS, hooksFile, spec } from '../../../../src/adapters/grok/install.js';
import { install, uninstall } from '../../../../src/cli/install/apply.js';
import { sandbox } from '../../install/support.js';

const root = join(import.meta.dirname, '../../../..');

describe('grok install', () => {
  it('hooks-grok.json is what install writes, with the package root as ${TIERGATE_ROOT}', () => {
    const { ctx } = sandbox();
    const shipped = JSON.parse(readFileSync(join(root, 'hooks-grok.json'), 'utf8')) as {
      hooks: Record<string, { matcher?: string; hooks: { type: string; command: string; timeout: number }[] }[]>;
    };
    expect(Object.keys(shipped.hooks)).toEqual(GROK_EVENTS.map((e) => e.event));
    for (const e of spec(ctx).entries) {
      const [only] = shipped.hooks[e.path[1] as string]!;
      const want = e.value as { matcher?: string; hooks: { command: string }[] };
      expect(only!.matcher).toBe(want.matcher);
      expect(only!.hooks[0]!.timeout).toBe(10);
      // The same words: node, its flag, the script under the package root, harness and event.
      const words = (c: string) => c.replace(/"/g, '').split(' ');
      expect(words(only!.hooks[0]!.command.replace('${TIERGATE_ROOT}', ctx.pkgRoot))).toEqual(
        words(want.hooks[0]!.command),
      );
    }
  });

  it("writes $GROK_HOME/hooks/tiergate.json beside the user's own hooks files, and uninstall leaves those byte for byte", () => {
    const { ctx } = sandbox({ GROK_HOME: '' });
    const dir = join(ctx.home, '.grok', 'hooks');
    mkdirSync(dir, { recursive: true });
    const mine =
      '{ "hooks": { "PreToolUse": [ { "matcher": "spawn_subagent", "hooks": [ { "type": "command", "command": "./mine.sh" } ] } ] } }\n';
    writeFileSync(join(dir, 'mine.json'), mine);
    const [ins] = install(ctx, ['grok'], { dryRun: false, run: false });
    expect(ins!.status, ins!.problems.join('; ')).toBe('done');
    expect(hooksFile(ctx)).toBe(join(dir, 'tiergate.json'));
    expect(existsSync(hooksFile(ctx))).toBe(true);
    expect(checkGrok(ctx).status).toBe('error'); // the sandbox package has no dist/hook.cjs
    expect(checkGrok(ctx).detail).toMatch(/does not exist/);
    const [un] = uninstall(ctx, ['grok'], { dryRun: false, run: false });
    expect(un!.status, un!.problems.join('; ')).toBe('done');
    expect(existsSync(hooksFile(ctx))).toBe(false);
    expect(readFileSync(join(dir, 'mine.json'), 'utf8')).toBe(mine);
    expect(checkGrok(ctx).status).toBe('info');
  });

  it('follows GROK_HOME', () => {
    const { ctx, root: r } = sandbox();
    const moved = join(r, 'grok-home');
    const c = { ...ctx, env: { ...ctx.env, GROK_HOME: moved } };
    expect(hooksFile(c)).toBe(join(moved, 'hooks', 'tiergate.json'));
  });

  it('doctor: ok when the hooks run this package', () => {
    const { ctx } = sandbox();
    mkdirSync(join(ctx.pkgRoot, 'dist'), { recursive: true });
    writeFileSync(join(ctx.pkgRoot, 'dist', 'hook.cjs'), '// hook\n');
    install(ctx, ['grok'], { dryRun: false, run: false });
    expect(checkGrok(ctx)).toMatchObject({ status: 'ok', detail: `hooks in ${hooksFile(ctx)}` });
  });
});

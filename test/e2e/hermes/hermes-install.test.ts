/**
 * `tiergate install hermes` / `uninstall hermes` through the built CLI: the plugin's files in $HERMES_HOME/plugins/
 * tiergate, `tiergate` in config.yaml's plugins.enabled (edited as text: comments and layout kept), and an uninstall
 * that gives config.yaml back byte for byte. No Hermes run: the e2e suite shows the installed plugin loading.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHermesHome, REPO, tiergate, type HermesHome } from './hermes-run.js';

const homes: HermesHome[] = [];
const CONFIGS: Record<string, string | null> = {
  absent: null,
  'no plugins key': '# mine\nmodel:\n  default: gpt-4o   # keep this comment\n',
  'a flow list': 'plugins:\n  enabled: [other]  # trailing\nmodel: x\n',
  'a block list': 'plugins:\n  # my plugins\n  enabled:\n    - other\n  disabled: []\nx: 1\n',
};

describe('tiergate install hermes', () => {
  beforeAll(() => {
    if (!existsSync(join(REPO, 'dist/cli.js'))) throw new Error('dist/cli.js missing: run `npm run build`');
  });
  afterAll(() => {
    for (const h of homes) h.cleanup();
  });

  it.each(Object.entries(CONFIGS))('%s: enabled by install, byte-exact after uninstall', (_name, text) => {
    const h = makeHermesHome();
    homes.push(h);
    const cfg = join(h.hermesHome, 'config.yaml');
    if (text !== null) writeFileSync(cfg, text);
    tiergate(h, ['install', 'hermes']);
    const dir = join(h.hermesHome, 'plugins', 'tiergate');
    expect(readFileSync(join(dir, '__init__.py'), 'utf8')).toBe(
      readFileSync(join(REPO, 'hermes/tiergate/__init__.py'), 'utf8'),
    );
    expect(JSON.parse(readFileSync(join(dir, 'tiergate.json'), 'utf8'))).toMatchObject({
      node: process.execPath,
      hook: join(REPO, 'dist', 'hook.cjs'),
    });
    const installed = readFileSync(cfg, 'utf8');
    expect(installed).toMatch(/^\s*(- tiergate|enabled: \[.*tiergate\])/m);
    // The user's lines are all still there, in order.
    if (text)
      for (const line of text.split('\n').filter((l) => l !== '' && !/enabled: \[/.test(l)))
        expect(installed).toContain(line);
    tiergate(h, ['install', 'hermes']);
    expect(readFileSync(cfg, 'utf8')).toBe(installed);
    tiergate(h, ['uninstall', 'hermes']);
    if (text === null) expect(existsSync(cfg)).toBe(false);
    else expect(readFileSync(cfg, 'utf8')).toBe(text);
    expect(existsSync(join(dir, '__init__.py'))).toBe(false);
  });

  it('refuses a config.yaml it cannot edit safely, and leaves it alone', () => {
    const h = makeHermesHome();
    homes.push(h);
    const cfg = join(h.hermesHome, 'config.yaml');
    writeFileSync(cfg, 'plugins: {enabled: [other]}\n');
    let out = '';
    try {
      out = tiergate(h, ['install', 'hermes']);
    } catch (err) {
      out = String((err as { stdout?: string }).stdout ?? '') + String((err as { stderr?: string }).stderr ?? '');
    }
    expect(out).toContain('hermes plugins enable tiergate');
    expect(readFileSync(cfg, 'utf8')).toBe('plugins: {enabled: [other]}\n');
  });
});

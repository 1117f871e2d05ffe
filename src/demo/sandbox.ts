/**
 * A throw-away tiergate home for the demo: ledger, spool, diagnostics, config and every staged transcript live under
 * one temp dir, and the environment handed to the hooks points HOME, XDG dirs and pi's agent dir there too, so a
 * replay cannot read or write the user's own files. Price refresh is off: the demo never touches the network.
 */
import { join } from 'node:path';
import { ensureDir, makeTempDir, removeTree, writeFileAtomic } from '../io/files.js';
import type { Env } from '../io/paths.js';
import { demoText } from './assets.js';

export type DemoSandbox = {
  root: string;
  project: string;
  env: Env;
  /** Copy a shipped file into the sandbox (under transcripts/), returning its new path. */
  stage(rel: string, as: string): string;
  remove(): void;
};

export function createSandbox(base: Env = process.env): DemoSandbox {
  const root = makeTempDir('tiergate-demo-');
  const project = join(root, 'project');
  const home = join(root, 'home');
  ensureDir(project);
  ensureDir(home);
  const env: Env = {
    PATH: base.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    TIERGATE_HOME: join(root, 'tiergate'),
    TIERGATE_PRICE_REFRESH: 'off',
    PI_CODING_AGENT_DIR: join(home, '.pi', 'agent'),
  };
  // The demo policy: tiers for the harnesses that route by agent, and the recorded runs' fake provider priced as
  // negotiated rates (the reference runs served OpenCode and pi from a fake model API on loopback). A harness's own
  // files (pi's agents) are placed by its demo (DemoKit.place).
  writeFileAtomic(join(env.TIERGATE_HOME!, 'config', 'config.json'), demoText('config.json'));
  return {
    root,
    project,
    env,
    stage(rel, as) {
      const to = join(root, 'transcripts', as);
      writeFileAtomic(to, demoText(rel));
      return to;
    },
    remove: () => removeTree(root),
  };
}

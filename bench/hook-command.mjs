// The node flags every shipped manifest starts dist/hook.cjs with (src/hook-runner/bundles.ts, HOOK_NODE_FLAGS), read
// from hooks-codex.json's dispatch command, so each bench times the command a harness runs. No tsx: a process bench
// imports this without loading TypeScript support.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

export const HOOK_NODE_ARGS = (() => {
  const manifest = JSON.parse(readFileSync(join(root, 'hooks-codex.json'), 'utf8'));
  const command = manifest.hooks.PreToolUse[0].hooks[0].command;
  const m = /^node((?: --[\w-]+)*) "/.exec(command);
  if (!m) throw new Error(`hooks-codex.json: unexpected hook command ${command}`);
  return m[1].trim().split(/\s+/).filter(Boolean);
})();

/**
 * Runs code in a fresh Node process (TypeScript through tsx), killed after a timeout. For calls that, when broken,
 * block their thread for good (a blocking open(2) of a FIFO): no vitest timeout can end a worker stuck in a syscall, so
 * in a child the failure is a kill and a failed test, not a hung run.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../../..');

/**
 * `body`: the body of an async function, ESM, with `src` (the repo's src/ path) in scope; what it returns comes back
 * through JSON. Throws when the child fails or is killed (`timed out` in the message for a kill).
 */
export function inChild<T>(body: string, timeoutMs = 20_000): T {
  const script = `const src = ${JSON.stringify(join(root, 'src'))};\nconst out = await (async () => {\n${body}\n})();\nprocess.stdout.write(JSON.stringify(out ?? null));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  if (r.signal) throw new Error(`child timed out after ${timeoutMs} ms (${r.signal}): it blocked`);
  if (r.status !== 0) throw new Error(`child failed (${r.status}): ${r.stderr.slice(0, 2000)}`);
  return JSON.parse(r.stdout) as T;
}

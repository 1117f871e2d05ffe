// Installs the pinned harness binaries the e2e suite drives, into .cache/harnesses/<name> (outside the package's
// node_modules: they are large and never dependencies of the published package).
// Usage: node scripts/install-harnesses.mjs [--latest] [claude|codex|opencode|pi|pi16|gemini|copilot|grok|bun|node22|node24 ...]
// (default: all). Prints one JSON line per harness: {name, ok, bin, version, error}.
// --latest (or TIERGATE_HARNESS_LATEST=1) installs each harness's newest release instead of its pin, into
// .cache/harnesses-latest (never over the pinned ones); the runtimes (bun, node22, node24) stay pinned. For
// `npm run test:e2e:latest` (scripts/e2e-latest.mjs); CI keeps the pins. Outside CI a failed install exits 0 and the
// e2e tests skip that harness with the printed reason; under CI (TIERGATE_STRICT=1, which .ci/run always sets, or CI
// set and not "false"/"0": test/support/ci.ts) any failed install exits 1, so CI cannot go green with every
// real-binary test skipped.
// TIERGATE_HARNESS_DIR replaces .cache/harnesses (the tests use it to show what a missing binary does).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const latest = args.includes('--latest') || process.env.TIERGATE_HARNESS_LATEST === '1';
const harnessDir = process.env.TIERGATE_HARNESS_DIR || join(root, '.cache', latest ? 'harnesses-latest' : 'harnesses');
const ci =
  process.env.TIERGATE_STRICT === '1' ||
  (Boolean(process.env.CI) && process.env.CI !== 'false' && process.env.CI !== '0');
let failed = 0;
export const HARNESSES = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  opencode: { pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  pi: { pkg: '@mariozechner/pi-coding-agent', version: '0.73.1', bin: 'pi' },
  // pi moved to @earendil-works (the old package stops at 0.73.1); 1.6.0 needs Node >= 22.19: its tests run it under node22.
  pi16: { pkg: '@earendil-works/pi-coding-agent', version: '1.6.0', bin: 'pi', node: 'node22' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  // Unpacks ~235 MB into $COPILOT_PKG_CACHE_HOME on first start: the e2e tests point that at .cache/copilot-pkg.
  copilot: { pkg: '@github/copilot', version: '1.0.102', bin: 'copilot' },
  // Its postinstall unpacks a 166 MB binary into $GROK_HOME/bin and writes $GROK_HOME/config.toml (1.0.41): pointed
  // into the cache so the installer never touches the real ~/.grok; the bin entry then links the unpacked binary.
  grok: { pkg: '@xai-official/grok', version: '1.0.41', bin: 'grok', home: 'GROK_HOME' },
  // OpenCode runs plugins in Bun: the ledger's bun:sqlite driver is tested under a real Bun.
  bun: { pkg: 'bun', version: '1.4.5', bin: 'bun', runtime: true },
  // Not harnesses: Node 22 and 24 from the registry, so the command hook (and its V8 code cache) runs under them too
  // (users run 22 and 24 as much as 20; CI's own Node is 20).
  node22: { pkg: 'node', version: '22.23.3', bin: 'node', runtime: true },
  node24: { pkg: 'node', version: '24.21.0', bin: 'node', runtime: true },
};

const named = args.filter((a) => a !== '--latest');
const wanted = named.length ? named : Object.keys(HARNESSES);
for (const name of wanted) {
  const h = HARNESSES[name];
  if (!h) {
    console.log(JSON.stringify({ name, ok: false, error: 'unknown harness' }));
    failed++;
    continue;
  }
  const dir = join(harnessDir, name);
  const bin = join(dir, 'node_modules', '.bin', h.bin);
  const stamp = join(dir, 'installed.json');
  const newest = latest && !h.runtime;
  const want = `${h.pkg}@${newest ? 'latest' : h.version}`;
  try {
    // The newest release is asked of the registry on every run (npm keeps an install that is already the newest).
    if (newest || !(existsSync(bin) && existsSync(stamp) && readFileSync(stamp, 'utf8').includes(want))) {
      mkdirSync(dir, { recursive: true });
      if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', want], {
        cwd: dir,
        env: h.home ? { ...process.env, [h.home]: join(dir, 'home') } : process.env,
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 600_000,
      });
      writeFileSync(stamp, JSON.stringify({ installed: want }) + '\n');
    }
    const ok = existsSync(bin);
    if (!ok) failed++;
    console.log(
      JSON.stringify({
        name,
        ok,
        bin,
        version: installedVersion(dir, h),
        error: ok ? null : 'binary missing after install',
      }),
    );
  } catch (err) {
    failed++;
    console.log(JSON.stringify({ name, ok: false, bin, error: String(err.stderr || err.message).slice(0, 500) }));
  }
}
/** The version npm put in place (package.json of the package), or null. */
function installedVersion(dir, h) {
  try {
    return JSON.parse(readFileSync(join(dir, 'node_modules', h.pkg, 'package.json'), 'utf8')).version ?? null;
  } catch {
    return null;
  }
}

if (failed && ci) {
  console.error(`install-harnesses: ${failed} of ${wanted.length} failed; under CI a missing harness fails the run`);
  process.exit(1);
}

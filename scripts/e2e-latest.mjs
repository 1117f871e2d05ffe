// `npm run test:e2e:latest`: the real-binary suite against the NEWEST release of every harness, before a release.
// Installs them (install-harnesses.mjs --latest, into .cache/harnesses-latest; the pinned ones are left alone), runs
// each harness's e2e folder with TIERGATE_HARNESS_LATEST=1 (test/e2e/support/harness-bin.ts then finds the newest
// binaries) and CI=true (a binary that is missing fails instead of skipping), and prints the versions and a pass/fail
// table. Exits 1 when any row fails. Loopback only, as every e2e test. CI runs `npm run test:e2e` on the pins.
// Usage: node scripts/e2e-latest.mjs [harness ...]   (default: every row)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
/** Row -> the packages it installs (versions shown) and the e2e folders it runs. */
const ROWS = {
  claude: { installs: ['claude'], folders: ['test/e2e/claude'] },
  codex: { installs: ['codex'], folders: ['test/e2e/codex'] },
  opencode: { installs: ['opencode', 'bun'], folders: ['test/e2e/opencode', 'test/e2e/ledger'] },
  pi: { installs: ['pi', 'pi16', 'node22'], folders: ['test/e2e/pi'] },
  gemini: { installs: ['gemini'], folders: ['test/e2e/gemini'] },
  copilot: { installs: ['copilot'], folders: ['test/e2e/copilot'] },
  grok: { installs: ['grok'], folders: ['test/e2e/grok'] },
  'install, refresh, report, node': {
    installs: ['node24'],
    folders: ['test/e2e/install', 'test/e2e/refresh', 'test/e2e/report', 'test/e2e/node'],
  },
};

const env = { ...process.env, TIERGATE_HARNESS_LATEST: '1', CI: 'true' };
const picked = process.argv.slice(2);
const rows = Object.entries(ROWS).filter(([name]) => picked.length === 0 || picked.includes(name));

const installs = [...new Set(rows.flatMap(([, r]) => r.installs))];
const versions = {};
let out = '';
try {
  out = execFileSync(process.execPath, [join(root, 'scripts/install-harnesses.mjs'), '--latest', ...installs], {
    encoding: 'utf8',
    env,
  });
} catch (err) {
  out = err.stdout ?? '';
}
for (const line of out.split('\n').filter(Boolean)) {
  const r = JSON.parse(line);
  versions[r.name] = r.ok ? (r.version ?? '?') : `not installed: ${r.error}`;
}
console.log('newest releases:');
for (const [name, v] of Object.entries(versions)) console.log(`  ${name.padEnd(8)} ${v}`);

execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore', env });

const dir = mkdtempSync(join(tmpdir(), 'tg-e2e-latest-'));
const results = [];
for (const [name, row] of rows) {
  const file = join(dir, `${name.replace(/\W+/g, '-')}.json`);
  const t0 = Date.now();
  spawnSync(
    'npx',
    ['vitest', 'run', '--config', 'vitest.e2e.config.ts', ...row.folders, '--reporter=json', `--outputFile=${file}`],
    { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  let r = { numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, success: false };
  try {
    r = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // no report: the run itself failed
  }
  const ok = r.success === true && r.numFailedTests === 0 && r.numPassedTests > 0;
  results.push({
    name,
    versions: row.installs.map((i) => `${i} ${versions[i] ?? '?'}`).join(', '),
    passed: r.numPassedTests,
    failed: r.numFailedTests,
    skipped: r.numPendingTests,
    seconds: Math.round((Date.now() - t0) / 1000),
    ok,
  });
}
rmSync(dir, { recursive: true, force: true });

const cols = ['harness', 'versions', 'passed', 'failed', 'skipped', 's', 'result'];
const table = results.map((r) => [
  r.name,
  r.versions,
  r.passed,
  r.failed,
  r.skipped,
  r.seconds,
  r.ok ? 'PASS' : 'FAIL',
]);
const widths = cols.map((c, i) => Math.max(c.length, ...table.map((row) => String(row[i]).length)));
const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
console.log(`\n${line(cols)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of table) console.log(line(row));
process.exit(results.every((r) => r.ok) ? 0 : 1);

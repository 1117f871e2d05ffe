/**
 * TLS from the URL: a server that accepts only TLS (pg_hba hostssl) and a self-signed certificate for 127.0.0.1.
 * `sslmode=verify-full&sslrootcert=<its certificate>` pushes and reports over an encrypted connection; another root,
 * or no TLS at all, is one line and exit 1.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTeam } from '../../../src/team/pg.js';
import { pgAvailable, startCluster, type PgCluster } from '../../support/pg-cluster.js';
import { RUNS } from '../report/seed.js';
import { home, localReport, push, removeHomes, scalars, seed, teamInit, teamReport } from './helpers.js';

const certDirs: string[] = [];

function selfSigned(cn: string): { key: string; cert: string; certFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tg-pgcert-'));
  certDirs.push(dir);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${cn}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  return {
    key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    certFile: join(dir, 'cert.pem'),
  };
}

describe.skipIf(!pgAvailable())('team ledger over TLS (sslmode=verify-full)', () => {
  let cluster: PgCluster;
  let server: ReturnType<typeof selfSigned>;
  let other: ReturnType<typeof selfSigned>;
  const url = (params: string) => `${cluster.url(undefined, undefined, 'postgres')}?${params}`;

  beforeAll(async () => {
    server = selfSigned('tiergate test server');
    other = selfSigned('someone else');
    cluster = await startCluster({
      settings: { ssl: 'on', ssl_cert_file: 'server.crt', ssl_key_file: 'server.key' },
      files: {
        'server.crt': { content: server.cert },
        'server.key': { content: server.key },
        // TLS or nothing over TCP (the helper's own admin connections use the unix socket).
        'pg_hba.conf': { content: 'local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\n' },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    removeHomes();
    for (const d of certDirs) rmSync(d, { recursive: true, force: true });
  });

  it("verify-full with the server's root: team init, push and report, over an encrypted connection", async () => {
    const good = url(`sslmode=verify-full&sslrootcert=${encodeURIComponent(server.certFile)}`);
    const init = await teamInit(home(), good);
    expect(init.code, init.err).toBe(0);
    const h = home({ user: 'tls-user', url: good });
    seed(h, RUNS.slice(0, 4));
    const r = await push(h);
    expect(r.code, r.err).toBe(0);
    const team = await teamReport(good, { by: 'agent' });
    expect(scalars(team.totals)).toEqual(scalars(localReport(h, { by: 'agent' }).totals));
    const db = await connectTeam(good);
    try {
      const [row] = await db.query<{ ssl: boolean; version: string }>(
        'SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
      );
      expect(row).toMatchObject({ ssl: true });
      expect(row!.version).toMatch(/^TLSv1\.[23]$/);
    } finally {
      await db.end();
    }
  });

  it('another root, or no TLS: one line, exit 1', async () => {
    const h = home({ user: 'tls-user' });
    seed(h, RUNS.slice(0, 1));
    const wrongRoot = await push(h, [], url(`sslmode=verify-full&sslrootcert=${encodeURIComponent(other.certFile)}`));
    expect(wrongRoot.code).toBe(1);
    expect(wrongRoot.err.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^tiergate push: TLS with 127\.0\.0\.1:\d+\/postgres failed: .*(self[- ]signed|certificate)/,
      ),
    ]);
    const plain = await push(h, [], url('sslmode=disable'));
    expect(plain.code).toBe(1);
    expect(plain.err.trim().split('\n')).toEqual([
      expect.stringMatching(/^tiergate push: .*no pg_hba\.conf entry .*no encryption/),
    ]);
  });
});

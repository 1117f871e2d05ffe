import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError, checkUrl, fetchText } from '../../../src/refresh/http.js';
import { PriceServer, json, makeCert, type Tls } from './support/server.js';

let tls: Tls;
let srv: PriceServer;
let other: PriceServer;
let plain: PriceServer;

const BIG = Buffer.alloc(64 * 1024, 0x20);

beforeAll(async () => {
  tls = makeCert();
  srv = await new PriceServer(tls).start();
  other = await new PriceServer(tls).start();
  plain = await new PriceServer(null).start();
  for (const s of [srv, other, plain]) s.routes.set('/good', json({ data: [{ id: 'x' }] }));
  srv.routes.set('/5xx', json({ error: 'down' }, 503));
  srv.routes.set('/404', json({ error: 'nope' }, 404));
  srv.routes.set('/slow-headers', async (_q, res, s) => {
    await s.hold();
    res.end();
  });
  srv.routes.set('/slow-body', async (_q, res, s) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data": [');
    await s.hold();
    res.end(']}');
  });
  srv.routes.set('/huge-declared', (_q, res) => {
    res.writeHead(200, { 'content-length': String(100 * 1024 * 1024) });
    res.write(BIG);
  });
  srv.routes.set('/huge-streamed', async (_q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length to refuse up front
    for (let i = 0; i < 400 && !res.destroyed; i++) {
      if (!res.write(BIG)) await new Promise((r) => res.once('drain', r).once('close', r));
    }
    res.end();
  });
  srv.routes.set('/truncated', (_q, res) => {
    res.writeHead(200, { 'content-length': '5000' });
    res.write('{"data": [{"id": "a"');
    setTimeout(() => res.destroy(), 20);
  });
  srv.routes.set('/redirect-same', (_q, res) => res.writeHead(302, { location: '/good' }).end());
  srv.routes.set('/redirect-other', (_q, res) => res.writeHead(302, { location: other.url('/good') }).end());
  srv.routes.set('/redirect-http', (_q, res) => res.writeHead(301, { location: plain.url('/good') }).end());
  srv.routes.set('/redirect-loop', (_q, res) => res.writeHead(307, { location: '/redirect-loop' }).end());
  srv.routes.set('/redirect-nowhere', (_q, res) => res.writeHead(302).end());
});

afterAll(async () => {
  await Promise.all([srv, other, plain].map((s) => s.stop()));
});

async function failure(p: Promise<unknown>): Promise<FetchError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

describe('checkUrl', () => {
  it('accepts https only', () => {
    expect(checkUrl('https://openrouter.ai/api/v1/models').host).toBe('openrouter.ai');
    expect(() => checkUrl('http://openrouter.ai/api/v1/models')).toThrow(/only https/);
    expect(() => checkUrl('ftp://127.0.0.1/x')).toThrow(/only https/);
    expect(() => checkUrl('not a url')).toThrow(/not a URL/);
    expect(() => checkUrl('https://user:pw@example.test/')).toThrow(/credentials/);
  });

  it('the loopback escape permits http to 127.0.0.1 and nothing else', () => {
    const env = { TIERGATE_REFRESH_ALLOW_LOOPBACK_HTTP: '1' };
    expect(checkUrl('http://127.0.0.1:9/x', { env }).port).toBe('9');
    expect(() => checkUrl('http://localhost:9/x', { env })).toThrow(/only https/);
    expect(() => checkUrl('http://127.0.0.2:9/x', { env })).toThrow(/only https/);
    expect(() => checkUrl('http://10.0.0.1/x', { allowLoopbackHttp: true })).toThrow(/only https/);
    expect(() => checkUrl('http://127.0.0.1:9/x', { env: { TIERGATE_REFRESH_ALLOW_LOOPBACK_HTTP: 'yes' } })).toThrow(
      /only https/,
    );
  });
});

describe('fetchText against a local HTTPS server', () => {
  it('fetches a good document over TLS with the test CA', async () => {
    const r = await fetchText(srv.url('/good'), { ca: tls.cert });
    expect(JSON.parse(r.text)).toEqual({ data: [{ id: 'x' }] });
    expect(r.status).toBe(200);
    expect(r.bytes).toBe(Buffer.byteLength(r.text));
  });

  it('refuses a certificate it does not trust', async () => {
    const before = srv.count('/good');
    const err = await failure(fetchText(srv.url('/good')));
    expect(err.kind).toBe('network');
    expect(srv.count('/good')).toBe(before); // the TLS handshake failed: no request was served
  });

  it('refuses plain http unless the loopback escape is on', async () => {
    expect((await failure(fetchText(plain.url('/good')))).kind).toBe('scheme');
    expect(plain.count('/good')).toBe(0);
    const r = await fetchText(plain.url('/good'), { allowLoopbackHttp: true });
    expect(JSON.parse(r.text).data[0].id).toBe('x');
  });

  it('reports 5xx and 4xx as status errors', async () => {
    const e5 = await failure(fetchText(srv.url('/5xx'), { ca: tls.cert }));
    expect([e5.kind, e5.message]).toEqual(['status', expect.stringContaining('503')]);
    expect((await failure(fetchText(srv.url('/404'), { ca: tls.cert }))).message).toContain('404');
  });

  it('times out a server that never sends headers', async () => {
    const err = await failure(fetchText(srv.url('/slow-headers'), { ca: tls.cert, headersTimeoutMs: 300 }));
    expect(err.kind).toBe('timeout');
    srv.release();
  });

  it('times out a body that stalls', async () => {
    const err = await failure(fetchText(srv.url('/slow-body'), { ca: tls.cert, bodyIdleTimeoutMs: 300 }));
    expect(err.kind).toBe('timeout');
    srv.release();
  });

  it('the overall deadline fires even when each chunk is on time', async () => {
    const err = await failure(fetchText(srv.url('/slow-body'), { ca: tls.cert, totalTimeoutMs: 300 }));
    expect(err.kind).toBe('timeout');
    expect(err.message).toContain('300 ms');
    srv.release();
  });

  it('refuses a declared length past the cap without reading the body', async () => {
    const err = await failure(fetchText(srv.url('/huge-declared'), { ca: tls.cert }));
    expect(err.kind).toBe('too-large');
    expect(err.message).toContain(String(8 * 1024 * 1024));
  });

  it('aborts a streamed body once it passes the cap', async () => {
    const err = await failure(fetchText(srv.url('/huge-streamed'), { ca: tls.cert, maxBytes: 256 * 1024 }));
    expect(err.kind).toBe('too-large');
    // The server saw the connection go away before it had written its 25 MiB.
    await expect.poll(() => srv.aborted.includes('/huge-streamed')).toBe(true);
  });

  it('rejects a truncated body', async () => {
    const err = await failure(fetchText(srv.url('/truncated'), { ca: tls.cert }));
    expect(err.kind).toBe('network');
  });

  it('follows a redirect on the same host', async () => {
    const r = await fetchText(srv.url('/redirect-same'), { ca: tls.cert });
    expect(r.url).toBe(srv.url('/good'));
    expect(JSON.parse(r.text).data[0].id).toBe('x');
  });

  it('refuses a redirect to another host (another port is another host) and never contacts it', async () => {
    const err = await failure(fetchText(srv.url('/redirect-other'), { ca: tls.cert }));
    expect(err.kind).toBe('host');
    expect(other.total()).toBe(0);
  });

  it('refuses a redirect from https down to http, even on loopback with the escape off', async () => {
    const err = await failure(fetchText(srv.url('/redirect-http'), { ca: tls.cert }));
    expect(err.kind).toBe('scheme');
    expect(plain.count('/good')).toBe(1); // only the earlier direct fetch
  });

  it('caps the number of requests (redirect loop)', async () => {
    const before = srv.count('/redirect-loop');
    const err = await failure(fetchText(srv.url('/redirect-loop'), { ca: tls.cert, maxRequests: 3 }));
    expect(err.kind).toBe('too-many-requests');
    expect(srv.count('/redirect-loop') - before).toBe(3);
  });

  it('rejects a redirect without a Location', async () => {
    expect((await failure(fetchText(srv.url('/redirect-nowhere'), { ca: tls.cert }))).kind).toBe('redirect');
  });
});

describe('proxies from the environment', () => {
  let proxy: Server;
  let proxyUrl = '';
  const connects: string[] = [];

  beforeAll(async () => {
    // A CONNECT proxy that only tunnels to 127.0.0.1 and records where it was asked to go.
    proxy = createServer((_q, res) => res.writeHead(405).end());
    proxy.on('connect', (req, client, head) => {
      connects.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      if (host !== '127.0.0.1') {
        client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
        return;
      }
      const upstream = connect(Number(port), '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise<void>((r) => proxy.close(() => r()));
  });

  it('tunnels through HTTPS_PROXY, and TLS and pinning still apply to the target', async () => {
    const env = { HTTPS_PROXY: proxyUrl };
    const r = await fetchText(srv.url('/good'), { ca: tls.cert, env });
    expect(JSON.parse(r.text).data[0].id).toBe('x');
    expect(connects).toContain(`127.0.0.1:${srv.port}`);
    const err = await failure(fetchText(srv.url('/redirect-other'), { ca: tls.cert, env }));
    expect(err.kind).toBe('host');
    expect(connects).not.toContain(`127.0.0.1:${other.port}`);
  });

  it('NO_PROXY sends matching hosts direct', async () => {
    const before = connects.length;
    const r = await fetchText(srv.url('/good'), {
      ca: tls.cert,
      env: { HTTPS_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' },
    });
    expect(r.status).toBe(200);
    expect(connects.length).toBe(before);
  });

  it('a dead proxy is a network error, not a hang', async () => {
    const err = await failure(
      fetchText(srv.url('/good'), { ca: tls.cert, env: { https_proxy: 'http://127.0.0.1:9' } }),
    );
    expect(['network', 'timeout']).toContain(err.kind);
  });
});

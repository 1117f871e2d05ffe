/**
 * A price server on 127.0.0.1 for the refresh tests: HTTPS with a self-signed certificate made here with openssl,
 * one route per fault. It counts requests per path and can hold a response until the test releases it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
  type Server as HttpServer,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Tls = { key: string; cert: string; certFile: string };

export function makeCert(): Tls {
  const dir = mkdtempSync(join(tmpdir(), 'tg-cert-'));
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
      '/CN=127.0.0.1',
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

export type Handler = (req: IncomingMessage, res: ServerResponse, srv: PriceServer) => unknown;

export class PriceServer {
  readonly hits = new Map<string, number>();
  readonly events: string[] = [];
  readonly routes = new Map<string, Handler>();
  /** Responses whose connection closed before the handler finished writing (aborted by the client). */
  readonly aborted: string[] = [];
  private held: Array<() => void> = [];
  private server!: HttpsServer | HttpServer;
  port = 0;
  constructor(private readonly tls: Tls | null) {}

  get origin(): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  url(path: string): string {
    return `${this.origin}${path}`;
  }

  count(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  total(): number {
    return [...this.hits.values()].reduce((a, b) => a + b, 0);
  }

  /** A promise the route can await: resolves when the test calls release(). */
  hold(): Promise<void> {
    return new Promise((resolve) => this.held.push(resolve));
  }

  release(): void {
    for (const r of this.held.splice(0)) r();
  }

  async start(): Promise<this> {
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? '/').split('?')[0]!;
      this.hits.set(path, this.count(path) + 1);
      this.events.push(`request ${path}`);
      res.on('close', () => {
        if (!res.writableFinished) this.aborted.push(path);
      });
      const h = this.routes.get(path);
      if (!h) {
        res.writeHead(404).end();
        return;
      }
      Promise.resolve(h(req, res, this)).catch(() => res.destroy());
    };
    this.server = this.tls
      ? createHttpsServer({ key: this.tls.key, cert: this.tls.cert }, handle)
      : createHttpServer(handle);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function json(body: unknown, status = 200): Handler {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
}

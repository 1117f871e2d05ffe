/**
 * PostgreSQL servers that stop answering, on 127.0.0.1: `silent` accepts connections and never says a word; `startup`
 * completes the startup (no TLS, no password: AuthenticationOk, ReadyForQuery) and then never answers a query;
 * `proxy` forwards to a real server until freeze(), after which nothing passes either way (a server or a path to it
 * that hangs mid-push). close() ends every socket.
 */
import { connect, createServer, type Socket } from 'node:net';

export type HungServer = { port: number; freeze(): void; close(): Promise<void> };

const SSL_REQUEST = 80877103;

export async function hungServer(mode: 'silent' | 'startup' | { proxyTo: number }): Promise<HungServer> {
  const sockets: Socket[] = [];
  let frozen = false;
  const server = createServer((s) => {
    sockets.push(s);
    s.on('error', () => undefined);
    if (mode === 'silent') return;
    if (mode === 'startup') {
      let started = false;
      s.on('data', (d: Buffer) => {
        if (started) return;
        if (d.length >= 8 && d.readInt32BE(0) === 8 && d.readInt32BE(4) === SSL_REQUEST) {
          s.write('N');
          if (d.length === 8) return;
        }
        started = true;
        const auth = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]); // 'R' AuthenticationOk
        const ready = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]); // 'Z' ReadyForQuery, idle
        s.write(Buffer.concat([auth, ready]));
      });
      return;
    }
    const up = connect(mode.proxyTo, '127.0.0.1');
    sockets.push(up);
    up.on('error', () => s.destroy());
    s.on('close', () => up.destroy());
    up.on('close', () => {
      if (!frozen) s.destroy();
    });
    s.on('data', (d) => {
      if (!frozen) up.write(d);
    });
    up.on('data', (d) => {
      if (!frozen) s.write(d);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    freeze: () => {
      frozen = true;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

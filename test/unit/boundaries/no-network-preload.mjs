// Preloaded (`node --import`) into a hook process by no-network.test.ts: every way Node opens a socket throws, and the
// attempt is appended to $TG_NET_LOG (tests may write files; the product may not, outside src/io/files.ts).
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const log = process.env.TG_NET_LOG;
function trap(name) {
  return function trapped() {
    if (log) appendFileSync(log, `${name} ${new Error().stack.split('\n').slice(2, 5).join(' | ')}\n`);
    throw new Error(`tiergate test: ${name} is forbidden on the dispatch path`);
  };
}
const net = require('node:net');
const tls = require('node:tls');
const dgram = require('node:dgram');
const http = require('node:http');
const https = require('node:https');
for (const [mod, name, keys] of [
  [net, 'net', ['connect', 'createConnection']],
  [tls, 'tls', ['connect']],
  [dgram, 'dgram', ['createSocket']],
  [http, 'http', ['request', 'get']],
  [https, 'https', ['request', 'get']],
]) {
  for (const k of keys) mod[k] = trap(`${name}.${k}`);
}
net.Socket.prototype.connect = trap('net.Socket.connect');
globalThis.fetch = trap('fetch');
globalThis.WebSocket = trap('WebSocket');

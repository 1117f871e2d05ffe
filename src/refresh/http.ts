/**
 * The only module that talks HTTP. It fetches one price document for the background refresh, and nothing on a
 * dispatch path ever reaches it. Every limit is enforced here, not by the caller:
 * HTTPS only, the source's host pinned across redirects, connect / header / idle-body / overall timeouts, a streamed
 * byte cap, and a cap on how many requests (redirect hops included) one fetch may make. Proxies come from `env`.
 */
import { Agent, EnvHttpProxyAgent, request, type Dispatcher } from 'undici';

export const HTTP_DEFAULTS = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  /** Longest silence between two body chunks. */
  bodyIdleTimeoutMs: 10_000,
  /** The whole fetch, redirects and body included. LiteLLM (≈1.5 MB) and models.dev (≈2.4 MB) take ≈2-3 s. */
  totalTimeoutMs: 30_000,
  maxBytes: 8 * 1024 * 1024,
  /** Requests per fetch: the first one plus redirect hops on the pinned host. */
  maxRequests: 4,
} as const;

export type FetchOptions = Partial<{
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyIdleTimeoutMs: number;
  totalTimeoutMs: number;
  maxBytes: number;
  maxRequests: number;
  /** Extra trusted CA certificates (PEM). Tests pass their self-signed CA here; NODE_EXTRA_CA_CERTS works too. */
  ca: string | string[];
  /**
   * Test-only escape: also accept plain http:// to 127.0.0.1 (never any other host). Set by the option or by
   * TIERGATE_REFRESH_ALLOW_LOOPBACK_HTTP=1 in the environment passed as `env`.
   */
  allowLoopbackHttp: boolean;
  env: Record<string, string | undefined>;
}>;

/** A refusal or failure with a short machine-readable kind, so the status file can say what went wrong. */
export class FetchError extends Error {
  constructor(
    readonly kind:
      | 'url'
      | 'scheme'
      | 'host'
      | 'redirect'
      | 'status'
      | 'timeout'
      | 'too-large'
      | 'network'
      | 'too-many-requests',
    message: string,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

export type FetchResult = { url: string; status: number; bytes: number; text: string };

const LOOPBACK = '127.0.0.1';

function loopbackHttpAllowed(opts: FetchOptions): boolean {
  return opts.allowLoopbackHttp === true || opts.env?.TIERGATE_REFRESH_ALLOW_LOOPBACK_HTTP === '1';
}

/** Throws unless the URL may be fetched: https, or http to 127.0.0.1 under the test-only escape. */
export function checkUrl(raw: string, opts: FetchOptions = {}): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError('url', `not a URL: ${raw.slice(0, 200)}`);
  }
  if (url.username || url.password) throw new FetchError('url', 'credentials in a source URL are refused');
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && url.hostname === LOOPBACK && loopbackHttpAllowed(opts)) return url;
  throw new FetchError('scheme', `only https is allowed (got ${url.protocol}//${url.host})`);
}

/**
 * GET one document as text. A redirect is followed only to the same host and port the source names (pinning);
 * anything else is refused. The body is streamed and the request aborted once it passes maxBytes.
 */
export async function fetchText(rawUrl: string, options: FetchOptions = {}): Promise<FetchResult> {
  const o = { ...HTTP_DEFAULTS, ...options };
  const first = checkUrl(rawUrl, options);
  const pinnedHost = first.host;
  const dispatcher = makeDispatcher(o, options.env ?? {});
  const abort = new AbortController();
  const timer = setTimeout(
    () => abort.abort(new FetchError('timeout', `no complete answer within ${o.totalTimeoutMs} ms`)),
    o.totalTimeoutMs,
  );
  timer.unref?.();
  try {
    let url = first;
    for (let n = 1; ; n++) {
      if (n > o.maxRequests)
        throw new FetchError('too-many-requests', `more than ${o.maxRequests} requests (redirect loop?)`);
      const res = await request(url, {
        dispatcher,
        method: 'GET',
        signal: abort.signal,
        headers: { accept: 'application/json', 'user-agent': 'tiergate-price-refresh', 'accept-encoding': 'identity' },
      }).catch((err: unknown) => {
        throw toFetchError(err, abort.signal);
      });
      if (res.statusCode >= 300 && res.statusCode < 400) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        const location = header(res.headers.location);
        if (!location) throw new FetchError('redirect', `HTTP ${res.statusCode} without a Location`);
        const next = checkUrl(new URL(location, url).toString(), options);
        if (next.host !== pinnedHost)
          throw new FetchError('host', `redirect to another host refused: ${next.host} (pinned ${pinnedHost})`);
        url = next;
        continue;
      }
      if (res.statusCode !== 200) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        throw new FetchError('status', `HTTP ${res.statusCode} from ${url.host}`);
      }
      const declared = Number(header(res.headers['content-length']) ?? NaN);
      if (Number.isFinite(declared) && declared > o.maxBytes) {
        res.body.destroy();
        throw new FetchError('too-large', `declared ${declared} bytes, cap ${o.maxBytes}`);
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      try {
        for await (const chunk of res.body) {
          bytes += (chunk as Buffer).length;
          if (bytes > o.maxBytes) {
            res.body.destroy();
            throw new FetchError('too-large', `body passed the ${o.maxBytes}-byte cap`);
          }
          chunks.push(chunk as Buffer);
        }
      } catch (err) {
        throw toFetchError(err, abort.signal);
      }
      return { url: url.toString(), status: res.statusCode, bytes, text: Buffer.concat(chunks).toString('utf8') };
    }
  } finally {
    clearTimeout(timer);
    // Never wait for a graceful close: a stuck server must not hold the refresh process open.
    dispatcher.destroy().catch(() => undefined);
  }
}

/**
 * Direct, or through the proxy the environment names (HTTPS_PROXY / HTTP_PROXY, honouring NO_PROXY), the way curl and
 * npm do: behind a corporate proxy a direct connection would only time out. Host pinning and the caps apply to the
 * target either way; the proxy sees only a CONNECT to the pinned host.
 */
function makeDispatcher(
  o: Required<Omit<FetchOptions, 'ca' | 'env' | 'allowLoopbackHttp'>> & FetchOptions,
  env: Record<string, string | undefined>,
): Dispatcher {
  const tls = { timeout: o.connectTimeoutMs, ...(o.ca ? { ca: o.ca } : {}) };
  const common = {
    headersTimeout: o.headersTimeoutMs,
    bodyTimeout: o.bodyIdleTimeoutMs,
    connections: 1,
    pipelining: 0,
  };
  const httpsProxy = env.HTTPS_PROXY || env.https_proxy || '';
  const httpProxy = env.HTTP_PROXY || env.http_proxy || '';
  if (!httpsProxy && !httpProxy) return new Agent({ ...common, connect: tls });
  return new EnvHttpProxyAgent({
    ...common,
    connect: tls,
    requestTls: tls,
    httpsProxy: httpsProxy || httpProxy,
    httpProxy: httpProxy || httpsProxy,
    noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
  });
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function toFetchError(err: unknown, signal: AbortSignal): FetchError {
  if (err instanceof FetchError) return err;
  if (signal.aborted && signal.reason instanceof FetchError) return signal.reason;
  const code = (err as { code?: string } | null)?.code ?? '';
  const message = err instanceof Error ? err.message : String(err);
  if (/TIMEOUT/i.test(code) || /timeout/i.test(message))
    return new FetchError('timeout', `${code || 'timeout'}: ${message}`);
  return new FetchError('network', `${code ? `${code}: ` : ''}${message}`);
}

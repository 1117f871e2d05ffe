/**
 * A fake OpenAI-compatible chat-completions API on 127.0.0.1 for real-binary e2e runs (OpenCode 1.18.33, pi 0.73.1).
 * It speaks only what those clients were seen to use (reference/opencode.md §1.1, pi.md §1): POST /v1/chat/completions
 * with stream: true, answered as `chat.completion.chunk` SSE lines, a finish chunk, a usage chunk, then [DONE].
 * Replies are scripted per request; every request is logged so tests assert on what the API received.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ChatMessage = {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
};

export type RecordedRequest = {
  n: number;
  path: string;
  model: string;
  messages: ChatMessage[];
  tools: string[];
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
};

export type ScriptedUsage = { prompt: number; completion: number; cached?: number };

export type Reply =
  /** `delayMs`: answered that much later (a child kept running while the parent dispatches more). */
  | { text: string; usage?: ScriptedUsage; delayMs?: number }
  | { toolCalls: Array<{ name: string; args: Record<string, unknown>; id?: string }>; usage?: ScriptedUsage }
  | { status: number; error: string };

export type Responder = (req: RecordedRequest) => Reply;

export type FakeChatApi = {
  port: number;
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

/** Text of a message's content, whether a string or an array of parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p) => (p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : ''))
      .join('');
  return '';
}

export function lastMessage(req: RecordedRequest): ChatMessage | undefined {
  return req.messages[req.messages.length - 1];
}

/** The text of the request's last message (a child's task, as its first request carries it). */
export function lastText(req: RecordedRequest): string {
  return contentText(lastMessage(req)?.content);
}

/** All text the request carries (system, user, tool results), for routing a scripted reply. */
export function requestText(req: RecordedRequest): string {
  return req.messages.map((m) => contentText(m.content)).join('\n');
}

/** The text of each tool result the request carries, in order. */
export function toolTexts(req: RecordedRequest): string[] {
  return req.messages.filter((m) => m.role === 'tool').map((m) => contentText(m.content));
}

/** What the parent model read back for each tool call over the run, by call id. */
export function toolResultsById(requests: RecordedRequest[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const q of requests)
    for (const m of q.messages) if (m.role === 'tool' && m.tool_call_id) out[m.tool_call_id] = contentText(m.content);
  return out;
}

/** A child's final answer, naming the model it ran on. */
export function childDone(req: RecordedRequest, usage: ScriptedUsage, delayMs?: number): Reply {
  return { text: `CHILD_FINAL from model=${req.model}: done.\nResult: done`, usage, ...(delayMs ? { delayMs } : {}) };
}

const MAX_BODY = 8 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) reject(new Error('body too large'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function chunk(id: string, model: string, delta: Record<string, unknown>, finish: string | null): string {
  const c = {
    id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(c)}\n\n`;
}

export async function startFakeChatApi(respond: Responder): Promise<FakeChatApi> {
  const requests: RecordedRequest[] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
      const rec: RecordedRequest = {
        n: ++n,
        path: req.url,
        model: String(body.model ?? ''),
        messages: (body.messages as ChatMessage[]) ?? [],
        tools: ((body.tools as Array<{ function?: { name?: string } }>) ?? []).map((t) =>
          String(t.function?.name ?? ''),
        ),
        headers: req.headers,
        body,
      };
      requests.push(rec);
      let reply: Reply;
      try {
        reply = respond(rec);
      } catch (err) {
        reply = { status: 500, error: `responder threw: ${String(err)}` };
      }
      if ('text' in reply && reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if ('status' in reply) {
        res
          .writeHead(reply.status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: reply.error } }));
        return;
      }
      const id = `chatcmpl-fake-${rec.n}`;
      const model = rec.model;
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      res.write(chunk(id, model, { role: 'assistant', content: '' }, null));
      if ('text' in reply) {
        res.write(chunk(id, model, { content: reply.text }, null));
        res.write(chunk(id, model, {}, 'stop'));
      } else {
        reply.toolCalls.forEach((tc, i) => {
          const callId = tc.id ?? `call_fake_${rec.n}${i ? `_${i}` : ''}`;
          res.write(
            chunk(
              id,
              model,
              { tool_calls: [{ index: i, id: callId, type: 'function', function: { name: tc.name, arguments: '' } }] },
              null,
            ),
          );
          res.write(
            chunk(id, model, { tool_calls: [{ index: i, function: { arguments: JSON.stringify(tc.args) } }] }, null),
          );
        });
        res.write(chunk(id, model, {}, 'tool_calls'));
      }
      const u = reply.usage ?? { prompt: 100, completion: 10 };
      const usage: Record<string, unknown> = {
        prompt_tokens: u.prompt,
        completion_tokens: u.completion,
        total_tokens: u.prompt + u.completion,
      };
      if (u.cached) usage.prompt_tokens_details = { cached_tokens: u.cached };
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [], usage })}\n\n`,
      );
      res.write('data: [DONE]\n\n');
      res.end();
    })().catch((err) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

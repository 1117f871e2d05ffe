/**
 * A fake Gemini API on 127.0.0.1 for the real Gemini CLI (0.61.0). It speaks only what the CLI was seen to use
 * (reference/gemini-cli.md §1.1): POST /v1beta/models/<model>:streamGenerateContent?alt=sse, answered with one SSE
 * `data:` chunk holding a candidate (a text or a functionCall), usageMetadata and modelVersion. Every request is logged
 * so tests assert on what the API received: the model it was sent for, parent or child, the function responses.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type Obj = Record<string, any>;

export type RecordedRequest = {
  n: number;
  /** The model in the URL: the id Gemini CLI sent. */
  model: string;
  /** The request declares complete_task (a subagent's tool) rather than invoke_agent (the parent's). */
  role: 'parent' | 'child';
  /** Every text part of every content, in order. */
  texts: string[];
  /** functionResponse parts of the LAST content (what the model sees of the tools it just called). */
  responses: Array<{ name: string; response: Obj }>;
  usage: { prompt: number; candidates: number; cached: number; thoughts: number };
};

export type Reply = { text: string } | { call: { name: string; args: Obj } };
export type Responder = (req: RecordedRequest, api: FakeGeminiApi) => Reply;

export type FakeGeminiApi = { url: string; requests: RecordedRequest[]; close(): Promise<void> };

const MAX_BODY = 16 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) reject(new Error('body too large'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function declared(body: Obj): string[] {
  const tools: Obj[] = Array.isArray(body.tools) ? body.tools : [];
  return tools.flatMap((t) =>
    Array.isArray(t.functionDeclarations) ? t.functionDeclarations.map((d: Obj) => String(d.name)) : [],
  );
}

export async function startFakeGeminiApi(respond: Responder): Promise<FakeGeminiApi> {
  const requests: RecordedRequest[] = [];
  let server: Server;
  const api: FakeGeminiApi = {
    url: '',
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  server = createServer(async (req, res) => {
    try {
      const m = /^\/v1beta\/models\/([^/:]+):streamGenerateContent/.exec(req.url ?? '');
      if (req.method !== 'POST' || !m) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404,"message":"not found"}}');
        return;
      }
      const body = JSON.parse(await readBody(req)) as Obj;
      const contents: Obj[] = Array.isArray(body.contents) ? body.contents : [];
      const last = contents[contents.length - 1];
      const n = requests.length + 1;
      const rec: RecordedRequest = {
        n,
        model: decodeURIComponent(m[1]!),
        role: declared(body).includes('complete_task') ? 'child' : 'parent',
        texts: contents.flatMap((c) =>
          Array.isArray(c.parts)
            ? c.parts.filter((p: Obj) => typeof p.text === 'string').map((p: Obj) => p.text as string)
            : [],
        ),
        responses: Array.isArray(last?.parts)
          ? last.parts
              .filter((p: Obj) => p.functionResponse)
              .map((p: Obj) => ({ name: p.functionResponse.name, response: p.functionResponse.response }))
          : [],
        // Distinct per request, so a test can tell which request a ledger row summed.
        usage: { prompt: 1000 + n, candidates: 20 + n, cached: 500, thoughts: 3 },
      };
      requests.push(rec);
      const reply = respond(rec, api);
      const part = 'text' in reply ? { text: reply.text } : { functionCall: reply.call };
      const chunk = {
        candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: {
          promptTokenCount: rec.usage.prompt,
          candidatesTokenCount: rec.usage.candidates,
          cachedContentTokenCount: rec.usage.cached,
          thoughtsTokenCount: rec.usage.thoughts,
          totalTokenCount: rec.usage.prompt + rec.usage.candidates + rec.usage.thoughts,
        },
        modelVersion: rec.model,
        responseId: `resp_e2e_${n}`,
      };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(chunk)}\n\n`);
    } catch (err) {
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 500, message: String(err) } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}

export const CHILD_PROMPT = 'E2E-CHILD: do the e2e task and report.';

/**
 * The parent dispatches `agent` with invoke_agent; a child finishes with complete_task; after a blocked dispatch the
 * parent retries once with `retry` (when given); then the parent ends with a text.
 */
export function delegation(agent: string, retry?: string): Responder {
  let retried = false;
  return (req) => {
    if (req.role === 'child')
      return { call: { name: 'complete_task', args: { result: 'Result: done\nVerified: yes' } } };
    const answered = req.responses.find((r) => r.name === 'invoke_agent');
    if (!answered) return { call: { name: 'invoke_agent', args: { agent_name: agent, prompt: CHILD_PROMPT } } };
    if (retry && !retried && typeof answered.response.error === 'string') {
      retried = true;
      return { call: { name: 'invoke_agent', args: { agent_name: retry, prompt: CHILD_PROMPT } } };
    }
    return { text: 'parent done' };
  };
}

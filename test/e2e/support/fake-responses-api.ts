/**
 * A fake OpenAI Responses API (`POST /v1/responses`, SSE) on 127.0.0.1 for driving the real Codex CLI
 * (event shapes seen with codex-cli 0.169.0, reference/codex.md §1.1). Every request is logged; each reply is chosen
 * by a script function from the request; usage differs per request so a ledger row can be traced to its request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FunctionCallReply = {
  type: 'call';
  name: string;
  namespace?: string;
  args: Record<string, unknown>;
  callId?: string;
};
/** `delayMs`: answered that much later (a child kept running while the parent dispatches more). */
export type TextReply = { type: 'text'; text: string; delayMs?: number };
export type Reply = FunctionCallReply | TextReply | { type: 'error'; status: number };

export type RecordedRequest = {
  n: number;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  model: string;
  /** From x-codex-turn-metadata: `/root` for the parent, `/root/<task_name>` for a child. */
  agentName: string | null;
  /** function_call_output items in `input`, by call_id. */
  outputs: Record<string, string>;
  /** Every input text (message content, developer text) flattened, for assertions on what the model was shown. */
  texts: string[];
  usage: Usage;
};

type Usage = { input_tokens: number; cached_input_tokens: number; output_tokens: number; reasoning_tokens: number };

export type Script = (req: RecordedRequest) => Reply;

export type FakeResponsesApi = {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Set the responder for later requests. */
  script: Script;
  close(): Promise<void>;
};

const MAX_BODY = 32 * 1024 * 1024;

function collectTexts(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) collectTexts(x, out);
  else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (o.type === 'additional_tools') return;
    for (const [k, x] of Object.entries(o))
      if (k === 'text' || k === 'content' || k === 'output' || k === 'arguments') collectTexts(x, out);
  }
}

function record(n: number, req: IncomingMessage, body: Record<string, unknown>): RecordedRequest {
  let agentName: string | null = null;
  const meta = req.headers['x-codex-turn-metadata'];
  if (typeof meta === 'string') {
    try {
      agentName = (JSON.parse(meta) as { agent_name?: string }).agent_name ?? null;
    } catch {
      agentName = null;
    }
  }
  const outputs: Record<string, string> = {};
  const input = Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [];
  for (const item of input) {
    if (item?.type === 'function_call_output' && typeof item.call_id === 'string')
      outputs[item.call_id] = typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
  }
  const texts: string[] = [];
  collectTexts(input, texts);
  return {
    n,
    path: req.url ?? '',
    headers: req.headers,
    body,
    model: String(body.model ?? ''),
    agentName,
    outputs,
    texts,
    usage: { input_tokens: 1000 + n, cached_input_tokens: 500 + n, output_tokens: 20 + n, reasoning_tokens: 3 },
  };
}

function sse(res: ServerResponse, type: string, data: Record<string, unknown>): void {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

function reply(res: ServerResponse, r: RecordedRequest, rep: Reply): void {
  if (rep.type === 'error') {
    res.writeHead(rep.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'scripted error', type: 'server_error' } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = `resp_${String(r.n).padStart(4, '0')}`;
  const response = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: r.model,
    status: 'in_progress',
    output: [] as unknown[],
  };
  sse(res, 'response.created', { sequence_number: 0, response });
  let item: Record<string, unknown>;
  if (rep.type === 'call') {
    const args = JSON.stringify(rep.args);
    const callId = rep.callId ?? `call_${r.n}`;
    const base = {
      type: 'function_call',
      id: `fc_${r.n}`,
      call_id: callId,
      name: rep.name,
      ...(rep.namespace ? { namespace: rep.namespace } : {}),
    };
    sse(res, 'response.output_item.added', {
      output_index: 0,
      item: { ...base, arguments: '', status: 'in_progress' },
    });
    sse(res, 'response.function_call_arguments.delta', { item_id: base.id, output_index: 0, delta: args });
    sse(res, 'response.function_call_arguments.done', { item_id: base.id, output_index: 0, arguments: args });
    item = { ...base, arguments: args, status: 'completed' };
  } else {
    const msgId = `msg_${r.n}`;
    sse(res, 'response.output_item.added', {
      output_index: 0,
      item: { type: 'message', id: msgId, role: 'assistant', status: 'in_progress', content: [] },
    });
    const part = { type: 'output_text', text: '', annotations: [] };
    sse(res, 'response.content_part.added', { item_id: msgId, output_index: 0, content_index: 0, part });
    sse(res, 'response.output_text.delta', { item_id: msgId, output_index: 0, content_index: 0, delta: rep.text });
    sse(res, 'response.output_text.done', { item_id: msgId, output_index: 0, content_index: 0, text: rep.text });
    sse(res, 'response.content_part.done', {
      item_id: msgId,
      output_index: 0,
      content_index: 0,
      part: { ...part, text: rep.text },
    });
    item = {
      type: 'message',
      id: msgId,
      role: 'assistant',
      status: 'completed',
      content: [{ ...part, text: rep.text }],
    };
  }
  sse(res, 'response.output_item.done', { output_index: 0, item });
  const u = r.usage;
  sse(res, 'response.completed', {
    response: {
      ...response,
      status: 'completed',
      output: [item],
      usage: {
        input_tokens: u.input_tokens,
        input_tokens_details: { cached_tokens: u.cached_input_tokens },
        output_tokens: u.output_tokens,
        output_tokens_details: { reasoning_tokens: u.reasoning_tokens },
        total_tokens: u.input_tokens + u.output_tokens,
      },
    },
  });
  res.end();
}

export async function startFakeResponsesApi(script: Script): Promise<FakeResponsesApi> {
  const requests: RecordedRequest[] = [];
  const api = { script } as FakeResponsesApi;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/responses')) {
        res.writeHead(404).end();
        return;
      }
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        body = {};
      }
      const r = record(requests.length + 1, req, body);
      requests.push(r);
      let rep: Reply;
      try {
        rep = api.script(r);
      } catch (err) {
        rep = { type: 'text', text: `fake api script error: ${String(err)}` };
      }
      if (rep.type === 'text' && rep.delayMs) setTimeout(() => reply(res, r, rep), rep.delayMs);
      else reply(res, r, rep);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  api.url = `http://127.0.0.1:${port}/v1`;
  api.port = port;
  api.requests = requests;
  api.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return api;
}

/**
 * The usual delegation conversation: the parent spawns one child (spawnArgs), waits for it, then answers; the child
 * answers with `childText`. A parent whose spawn was blocked retries once with `retryArgs` (when given). With
 * `followup`, after the first wait the parent sends the child a follow-up task and waits again (a second child turn).
 */
export function delegationScript(opts: {
  spawnArgs: Record<string, unknown>;
  retryArgs?: Record<string, unknown>;
  childText?: string;
  followup?: boolean;
}): Script {
  return (r) => {
    const child = r.agentName !== null && r.agentName !== '/root';
    if (child) return { type: 'text', text: opts.childText ?? 'Result: done\nVerified: yes' };
    const outs = r.outputs;
    const spawn = outs.call_spawn_1;
    if (spawn === undefined)
      return {
        type: 'call',
        namespace: 'collaboration',
        name: 'spawn_agent',
        args: opts.spawnArgs,
        callId: 'call_spawn_1',
      };
    const blocked = spawn.includes('blocked by PreToolUse hook');
    if (blocked && opts.retryArgs && outs.call_spawn_2 === undefined) {
      return {
        type: 'call',
        namespace: 'collaboration',
        name: 'spawn_agent',
        args: opts.retryArgs,
        callId: 'call_spawn_2',
      };
    }
    const spawned = !blocked || outs.call_spawn_2 !== undefined;
    if (spawned && outs.call_wait_1 === undefined && !(outs.call_spawn_2 ?? spawn).includes('blocked')) {
      return {
        type: 'call',
        namespace: 'collaboration',
        name: 'wait_agent',
        args: { timeout_ms: 20000 },
        callId: 'call_wait_1',
      };
    }
    if (opts.followup && outs.call_wait_1 !== undefined && outs.call_follow_1 === undefined) {
      const target = `/root/${String(opts.spawnArgs.task_name)}`;
      return {
        type: 'call',
        namespace: 'collaboration',
        name: 'followup_task',
        args: { target, message: 'CHILD_TASK: the follow-up' },
        callId: 'call_follow_1',
      };
    }
    if (opts.followup && outs.call_follow_1 !== undefined && outs.call_wait_2 === undefined) {
      return {
        type: 'call',
        namespace: 'collaboration',
        name: 'wait_agent',
        args: { timeout_ms: 20000 },
        callId: 'call_wait_2',
      };
    }
    return { type: 'text', text: 'parent done' };
  };
}

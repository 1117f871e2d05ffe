/**
 * A fake Anthropic Messages API on 127.0.0.1 for driving the real `claude` binary (reference/claude-code.md §1.1).
 * Scripted replies (an Agent tool_use for the parent, a text report for a child), a request log, and distinct usage
 * per request so a test can tell which request a ledger row came from. Nothing here leaves loopback.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Reply =
  | { kind: 'text'; text: string; model?: string }
  | { kind: 'tool_use'; name: string; input: Record<string, unknown>; id?: string; model?: string }
  /** Several tool calls in one assistant message (Claude Code runs them as one batch). */
  | { kind: 'tool_uses'; calls: Array<{ name: string; input: Record<string, unknown>; id?: string }>; model?: string };

/** One request the fake API received. `role` is the script's classification of it. */
export type LoggedRequest = {
  index: number;
  /** When the request body had arrived (epoch ms, performance-based for sub-ms resolution). */
  at: number;
  /** When the reply was fully written. */
  respondedAt: number;
  model: string;
  role: 'parent-dispatch' | 'child' | 'parent-after-tool' | 'other';
  toolResults: Array<{ tool_use_id: string; is_error: boolean; text: string }>;
  firstUserText: string;
  body: Record<string, unknown>;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
  };
};

export type Script = (req: Omit<LoggedRequest, 'usage' | 'respondedAt'>) => Reply;

export const CHILD_MARKER = 'TG-CHILD-TASK';

/** The usual run: the parent dispatches `agentInput` once, a child reports, the parent finishes. */
export function dispatchScript(
  agentInput: Record<string, unknown>,
  opts: { childServedModel?: string; retryOnError?: Record<string, unknown> } = {},
): Script {
  let retried = false;
  return (req) => {
    if (req.role === 'child')
      return { kind: 'text', text: 'Result: done\nVerified: yes', model: opts.childServedModel };
    if (req.role === 'parent-after-tool') {
      const err = req.toolResults.find((t) => t.is_error);
      if (err && opts.retryOnError && !retried) {
        retried = true;
        return { kind: 'tool_use', name: 'Agent', input: opts.retryOnError, id: 'toolu_tg_retry' };
      }
      return { kind: 'text', text: 'All done.' };
    }
    return { kind: 'tool_use', name: 'Agent', input: agentInput, id: 'toolu_tg_1' };
  };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: string; content?: unknown }) =>
      b.type === 'text' ? (b.text ?? '') : b.type === 'tool_result' ? textOf(b.content) : '',
    )
    .join('\n');
}

function classify(
  body: Record<string, unknown>,
): Omit<LoggedRequest, 'index' | 'at' | 'respondedAt' | 'usage' | 'body' | 'model'> {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Array<{ role: string; content: unknown }>;
  const users = messages.filter((m) => m.role === 'user');
  const firstUserText = users.length > 0 ? textOf(users[0]!.content) : '';
  const toolResults: LoggedRequest['toolResults'] = [];
  const last = messages[messages.length - 1];
  for (const m of messages) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content as Array<Record<string, unknown>>) {
      if (b.type === 'tool_result')
        toolResults.push({
          tool_use_id: String(b.tool_use_id),
          is_error: b.is_error === true,
          text: textOf(b.content),
        });
    }
  }
  const lastHasToolResult =
    !!last &&
    Array.isArray(last.content) &&
    (last.content as Array<{ type?: string }>).some((b) => b.type === 'tool_result');
  let role: LoggedRequest['role'] = 'other';
  if (firstUserText.includes(CHILD_MARKER)) role = 'child';
  else if (lastHasToolResult || toolResults.length > 0) role = 'parent-after-tool';
  else role = 'parent-dispatch';
  return { role, toolResults, firstUserText };
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export type FakeAnthropic = {
  url: string;
  port: number;
  requests: LoggedRequest[];
  setScript(s: Script): void;
  close(): Promise<void>;
};

export async function startFakeAnthropic(script: Script): Promise<FakeAnthropic> {
  const requests: LoggedRequest[] = [];
  let current = script;
  let n = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      if (req.method === 'GET' && url.startsWith('/v1/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: [], has_more: false }));
        return;
      }
      if (req.method === 'POST' && url.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      if (!(req.method === 'POST' && url.startsWith('/v1/messages'))) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: url } }));
        return;
      }
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        /* the reply below still answers */
      }
      n += 1;
      // Distinct numbers per request: request k reports input 1000+k, output 20+k, cache read 500+k, write 300+k.
      const usage = {
        input_tokens: 1000 + n,
        output_tokens: 20 + n,
        cache_read_input_tokens: 500 + n,
        cache_creation_input_tokens: 300 + n,
      };
      const base = {
        index: n,
        at: performance.timeOrigin + performance.now(),
        model: String(body.model ?? ''),
        ...classify(body),
        body,
      };
      const logged: LoggedRequest = { ...base, usage, respondedAt: 0 };
      requests.push(logged);
      let reply: Reply;
      try {
        reply = current(base);
      } catch {
        reply = { kind: 'text', text: 'script error' };
      }
      const served = reply.model ?? logged.model;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      sse(res, 'message_start', {
        type: 'message_start',
        message: {
          id: `msg_tg_${String(n).padStart(4, '0')}`,
          type: 'message',
          role: 'assistant',
          model: served,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input_tokens,
            output_tokens: 1,
            cache_creation_input_tokens: usage.cache_creation_input_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
          },
        },
      });
      if (reply.kind === 'text') {
        sse(res, 'content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'text', text: '' },
        });
        sse(res, 'content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: reply.text },
        });
        sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
      } else {
        const calls =
          reply.kind === 'tool_use'
            ? [{ name: reply.name, input: reply.input, id: reply.id ?? `toolu_tg_${n}` }]
            : reply.calls;
        calls.forEach((c, i) => {
          sse(res, 'content_block_start', {
            type: 'content_block_start',
            index: i,
            content_block: { type: 'tool_use', id: c.id ?? `toolu_tg_${n}_${i}`, name: c.name, input: {} },
          });
          sse(res, 'content_block_delta', {
            type: 'content_block_delta',
            index: i,
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.input) },
          });
          sse(res, 'content_block_stop', { type: 'content_block_stop', index: i });
        });
      }
      sse(res, 'message_delta', {
        type: 'message_delta',
        delta: { stop_reason: reply.kind === 'text' ? 'end_turn' : 'tool_use', stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      });
      sse(res, 'message_stop', { type: 'message_stop' });
      res.end();
      logged.respondedAt = performance.timeOrigin + performance.now();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setScript: (s) => {
      current = s;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A child's label: the word after CHILD_MARKER in its prompt (`TG-CHILD-TASK <label>: …`), or null. */
export function childLabel(req: Pick<LoggedRequest, 'firstUserText'>): string | null {
  return new RegExp(`${CHILD_MARKER} ([A-Za-z0-9_.-]+):`).exec(req.firstUserText)?.[1] ?? null;
}

/**
 * The parent dispatches every call in one message (Claude Code runs them as one batch); each child reports; a call
 * answered with an error is dispatched again once with `retry[id]` when that names an input for it.
 */
export function batchDispatchScript(
  calls: Array<{ id: string; input: Record<string, unknown> }>,
  opts: { retry?: Record<string, Record<string, unknown>> } = {},
): Script {
  const retried = new Set<string>();
  return (req) => {
    if (req.role === 'child') return { kind: 'text', text: 'Result: done\nVerified: yes' };
    if (req.role === 'parent-after-tool') {
      const again = req.toolResults.filter(
        (t) => t.is_error && opts.retry?.[t.tool_use_id] && !retried.has(t.tool_use_id),
      );
      if (again.length > 0) {
        for (const t of again) retried.add(t.tool_use_id);
        return {
          kind: 'tool_uses',
          calls: again.map((t) => ({
            name: 'Agent',
            input: opts.retry![t.tool_use_id]!,
            id: `${t.tool_use_id}_retry`,
          })),
        };
      }
      return { kind: 'text', text: 'All done.' };
    }
    return { kind: 'tool_uses', calls: calls.map((c) => ({ name: 'Agent', input: c.input, id: c.id })) };
  };
}

/** An opus general-purpose Agent call's input for child `c<n>`, run in the foreground (its result before the next). */
export const agentInput = (n: number, task = 'do the task and report.') => ({
  description: `tg child ${n}`,
  prompt: `${CHILD_MARKER} c${n}: ${task}`,
  subagent_type: 'general-purpose',
  run_in_background: false,
  model: 'opus',
});

/**
 * Two dispatches in sequence: the parent sends c1, then c2 only once c1's result is back, then ends; each child answers
 * by `child` (by default it reports at once).
 */
export function twoInSequence(
  child: Script = () => ({ kind: 'text', text: 'Result: done\nVerified: yes' }),
  task?: string,
): Script {
  return (req) => {
    if (req.role === 'child') return child(req);
    if (req.role === 'parent-after-tool')
      return req.toolResults.length === 1
        ? { kind: 'tool_use', name: 'Agent', input: agentInput(2, task), id: 'toolu_tg_second' }
        : { kind: 'text', text: 'All done.' };
    return { kind: 'tool_use', name: 'Agent', input: agentInput(1, task), id: 'toolu_tg_first' };
  };
}

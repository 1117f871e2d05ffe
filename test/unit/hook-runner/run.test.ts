import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { COMMAND_ADAPTERS } from '../../../src/wiring/command-hooks.js';
import { runHook } from '../../../src/wiring/command-hooks.js';

COMMAND_ADAPTERS.fake = async () => ({
  handlers: {
    Echo: (p) => ({ stdout: JSON.stringify(p) }),
    Throw: () => {
      throw new Error('adapter bug');
    },
    Hang: () => new Promise(() => undefined),
    // Never yields to the event loop, so the deadline timer cannot fire before it returns.
    Busy: () => {
      const until = Date.now() + 450;
      while (Date.now() < until) {
        /* spin */
      }
      return { stdout: '{"decision":"block"}' };
    },
  },
  failOpen: { Hang: { stdout: '{"permission":"allow"}' } },
});

const env = () => ({ TIERGATE_HOME: mkdtempSync(join(tmpdir(), 'tg-run-')), TIERGATE_HOOK_DEADLINE_MS: '300' });
const input = (s: string | Buffer) => Readable.from([typeof s === 'string' ? Buffer.from(s) : s]);
const log = (e: { TIERGATE_HOME: string }) => {
  const f = join(e.TIERGATE_HOME, 'data', 'diagnostics.log');
  return existsSync(f) ? readFileSync(f, 'utf8') : '';
};

describe('hook runner', () => {
  it('passes a parsed payload (BOM stripped) to the handler and returns its answer', async () => {
    const r = await runHook('fake', 'Echo', input('\uFEFF{"a":1}'), env());
    expect(r).toEqual({ answer: { stdout: '{"a":1}' }, failed: null });
  });

  it('fails open on invalid JSON, with a diagnostic', async () => {
    const e = env();
    const r = await runHook('fake', 'Echo', input('{"a":'), e);
    expect(r.answer).toBeNull();
    expect(log(e)).toContain('"kind":"bad-json"');
  });

  it('fails open on oversize stdin without reading it all', async () => {
    const e = { ...env(), TIERGATE_HOOK_MAX_STDIN: '1024' };
    const r = await runHook('fake', 'Echo', input(Buffer.alloc(10 * 1024 * 1024, 0x20)), e);
    expect(r.answer).toBeNull();
    expect(log(e)).toContain('"kind":"oversize"');
  });

  it('answers once stdin holds a whole payload, without waiting for the harness to close it', async () => {
    const open = new PassThrough();
    open.write('{"a":1}\n');
    // Before this, only the deadline (300 ms here) ended such a read: no answer, `failed` set.
    const r = await runHook('fake', 'Echo', open, env());
    expect(r).toEqual({ answer: { stdout: '{"a":1}' }, failed: null });
  });

  it('a `}` that ends a chunk inside a longer payload does not end it', async () => {
    const r = await runHook(
      'fake',
      'Echo',
      Readable.from([Buffer.from('{"a":{"b":1}'), Buffer.from(',"c":2}')]),
      env(),
    );
    expect(r).toEqual({ answer: { stdout: '{"a":{"b":1},"c":2}' }, failed: null });
  });

  it('fails open when the adapter throws', async () => {
    const e = env();
    const r = await runHook('fake', 'Throw', input('{}'), e);
    expect(r).toEqual({ answer: null, failed: 'Error: adapter bug' });
    expect(log(e)).toContain('adapter bug');
  });

  it("answers the adapter's fail-open answer at the deadline", async () => {
    const e = env();
    const r = await runHook('fake', 'Hang', input('{}'), e);
    expect(r.answer).toEqual({ stdout: '{"permission":"allow"}' });
    expect(log(e)).toContain('deadline of 300 ms passed');
  });

  it('fails open for an unknown harness or event', async () => {
    expect((await runHook('nope', 'X', input('{}'), env())).answer).toBeNull();
    expect((await runHook('fake', 'Nope', input('{}'), env())).answer).toBeNull();
  });

  it('captures raw payloads verbatim when TIERGATE_HOOK_DEBUG is set', async () => {
    const e = env();
    const debug = join(e.TIERGATE_HOME, 'capture.jsonl');
    await runHook('fake', 'Echo', input('{"model":"opus"}'), { ...e, TIERGATE_HOOK_DEBUG: debug });
    const rec = JSON.parse(readFileSync(debug, 'utf8').trim());
    expect(rec).toMatchObject({ harness: 'fake', event: 'Echo', stdin: 'stream', raw: '{"model":"opus"}' });
  });

  it('names the kind of descriptor stdin was in the debug record (the e2e evidence of each harness read path)', async () => {
    const e = env();
    const debug = join(e.TIERGATE_HOME, 'capture.jsonl');
    const file = join(e.TIERGATE_HOME, 'payload.json');
    writeFileSync(file, '{}');
    const fd = openSync(file, 'r');
    try {
      await runHook('fake', 'Echo', { fd }, { ...e, TIERGATE_HOOK_DEBUG: debug });
    } finally {
      closeSync(fd);
    }
    expect(JSON.parse(readFileSync(debug, 'utf8').trim())).toMatchObject({ stdin: 'file', raw: '{}' });
  });

  it('drops an answer computed synchronously past the deadline, as if the timer had won', async () => {
    const e = env();
    const r = await runHook('fake', 'Busy', input('{}'), e);
    expect(r.answer).toBeNull();
    expect(r.failed).toContain('deadline of 300 ms passed');
    expect(log(e)).toContain('deadline of 300 ms passed');
  });
});

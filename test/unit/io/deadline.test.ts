import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, read, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { describe, expect, it, vi } from 'vitest';
import { deadlineFromEnv, failOpen } from '../../../src/adapters/in-process/deadline.js';
import { LOOP_SPIN_MS, withDeadlineOnWait } from '../../../src/hook-runner/loop-window.js';
import { DeadlineExceeded, waitAtMost, withDeadline } from '../../../src/io/deadline.js';
import { runCollect } from '../../../src/io/processes.js';

describe('in-process deadlines', () => {
  it('passes a value through and rejects a hang at the deadline', async () => {
    expect(await withDeadline(Promise.resolve(3), 50, 'x')).toBe(3);
    const t0 = Date.now();
    await expect(withDeadline(new Promise(() => undefined), 60, 'slow')).rejects.toBeInstanceOf(DeadlineExceeded);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(55);
  });

  it("rejects at once when no time is left, with the caller's own error when it names one", async () => {
    class Late extends Error {}
    await expect(withDeadline(new Promise(() => undefined), 0, 'none')).rejects.toBeInstanceOf(DeadlineExceeded);
    await expect(withDeadline(new Promise(() => undefined), 20, 'own', () => new Late())).rejects.toBeInstanceOf(Late);
    await expect(withDeadline(Promise.reject(new Late()), 50, 'thrown')).rejects.toBeInstanceOf(Late);
  });

  it('waitAtMost stops waiting at its bound and never rejects', async () => {
    const t0 = Date.now();
    await expect(waitAtMost(new Promise(() => undefined), 40)).resolves.toBeUndefined();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(35);
    await expect(waitAtMost(Promise.reject(new Error('lost')), 40)).resolves.toBeUndefined();
  });

  it('failOpen returns the fallback and writes one diagnostic line per failure', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-dl-'));
    const env = { TIERGATE_HOME: home };
    expect(
      await failOpen(
        'w:throw',
        100,
        'fb',
        () => {
          throw new Error('bad');
        },
        env,
      ),
    ).toBe('fb');
    expect(await failOpen('w:hang', 30, 'fb', () => new Promise<string>(() => undefined), env)).toBe('fb');
    expect(await failOpen('w:ok', 100, 'fb', async () => 'real', env)).toBe('real');
    const lines = readFileSync(join(home, 'data', 'diagnostics.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.where, l.level])).toEqual([
      ['w:throw', 'error'],
      ['w:hang', 'warn'],
    ]);
  });

  it('reads the override from the environment', () => {
    expect(deadlineFromEnv({ TIERGATE_CALLBACK_DEADLINE_MS: '250' }, 2000)).toBe(250);
    expect(deadlineFromEnv({ TIERGATE_CALLBACK_DEADLINE_MS: 'x' }, 2000)).toBe(2000);
  });
});

describe('runCollect', () => {
  it('collects output, caps bytes and kills at the timeout', async () => {
    const ok = await runCollect(
      process.execPath,
      ['-e', 'process.stdout.write("a".repeat(5000)); process.stderr.write("e")'],
      { timeoutMs: 10_000, maxBytes: 100 },
    );
    expect(ok).toMatchObject({ code: 0, truncated: true, timedOut: false });
    expect(ok.stdout.length + ok.stderr.length).toBeLessThanOrEqual(100);
    const slow = await runCollect(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], {
      timeoutMs: 200,
      maxBytes: 100,
    });
    expect(slow.timedOut).toBe(true);
    const missing = await runCollect('/nonexistent/tiergate-binary', [], { timeoutMs: 1000, maxBytes: 100 });
    expect(missing.error).toMatch(/ENOENT/);
  });
});

describe('withDeadlineOnWait', () => {
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

  it('makes no timer for work that settles without waiting for the event loop', async () => {
    const made = vi.spyOn(globalThis, 'setTimeout');
    try {
      const work = (async () => {
        for (let i = 0; i < 20; i++) await null;
        return 'now';
      })();
      await expect(withDeadlineOnWait(work, 1000, 'hook')).resolves.toBe('now');
      expect(made).not.toHaveBeenCalled();
    } finally {
      made.mockRestore();
    }
  });

  it('arms the deadline when the work waits, and ends the wait at it', async () => {
    let stall: NodeJS.Timeout | undefined;
    const started = Date.now();
    const work = new Promise((r) => {
      stall = setTimeout(r, 10_000);
    });
    await expect(withDeadlineOnWait(work, 50, 'hook')).rejects.toBeInstanceOf(DeadlineExceeded);
    clearTimeout(stall);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('arms it too for work that keeps the loop turning past LOOP_SPIN_MS, and leaves no timer once the work settles', async () => {
    const before = timers();
    const made = vi.spyOn(globalThis, 'setTimeout');
    try {
      const work = (async () => {
        for (let i = 0; i < 50; i++) await null;
        const until = Date.now() + LOOP_SPIN_MS + 20;
        while (Date.now() < until) await new Promise((r) => setImmediate(r));
        return 'late but in time';
      })();
      await expect(withDeadlineOnWait(work, 1000, 'hook', 4)).resolves.toBe('late but in time');
      expect(made).toHaveBeenCalledTimes(1);
    } finally {
      made.mockRestore();
    }
    expect(timers()).toBe(before);
  });

  it('makes no timer for work done within a few loop turns (a pooled read not yet done at the first poll)', async () => {
    const made = vi.spyOn(globalThis, 'setTimeout');
    try {
      const work = (async () => {
        for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
        return 'soon';
      })();
      await expect(withDeadlineOnWait(work, 1000, 'hook', 4)).resolves.toBe('soon');
      expect(made).not.toHaveBeenCalled();
    } finally {
      made.mockRestore();
    }
  });

  it('makes no timer for work that an I/O callback of the first loop turn settles (a socket stdin already written)', async () => {
    const made = vi.spyOn(globalThis, 'setTimeout');
    try {
      // A pooled read of bytes already there, as a socket stdin's is: started before the loop's first poll, so its
      // callback is collected by that poll (fs.read of a file: the same thread pool).
      const file = fileURLToPath(import.meta.url);
      const buf = Buffer.alloc(16);
      const fd = openSync(file, 'r');
      const work = new Promise<number>((resolve, reject) =>
        read(fd, buf, 0, buf.length, 0, (err, n) => (err ? reject(err) : resolve(n))),
      );
      // The pool thread is done well before the loop turns: what is measured is the poll, not the thread's speed.
      const until = Date.now() + 50;
      while (Date.now() < until);
      await expect(withDeadlineOnWait(work, 1000, 'hook', 4)).resolves.toBe(16);
      closeSync(fd);
      expect(made).not.toHaveBeenCalled();
    } finally {
      made.mockRestore();
    }
  });

  it('rejects at once when no time is left', async () => {
    await expect(withDeadlineOnWait(new Promise(() => {}), 0, 'hook')).rejects.toBeInstanceOf(DeadlineExceeded);
  });

  it('without Atomics.waitAsync (another runtime), arms the timer at once and still ends the wait at the deadline', async () => {
    const atomics = Atomics as unknown as { waitAsync?: unknown };
    const saved = atomics.waitAsync;
    const made = vi.spyOn(globalThis, 'setTimeout');
    atomics.waitAsync = undefined;
    try {
      const started = Date.now();
      await expect(withDeadlineOnWait(new Promise(() => {}), 50, 'hook')).rejects.toBeInstanceOf(DeadlineExceeded);
      expect(made).toHaveBeenCalledTimes(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    } finally {
      atomics.waitAsync = saved;
      made.mockRestore();
    }
  });

  // The window before the timer is a platform timer that holds no reference on the event loop: in a process of its own
  // (the hook's), work waiting on nothing at all must still end at the deadline, not exit in the window unanswered.
  it('in a process of its own, work that waits on nothing ends at the deadline, and work done exits at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-deadline-proc-'));
    const module = join(dir, 'deadline.cjs');
    const entry = join(import.meta.dirname, '../../../src/hook-runner/loop-window.ts');
    buildSync({
      entryPoints: [entry],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      outfile: module,
      logLevel: 'silent',
    });
    const run = (work: string) => {
      const script =
        `const { withDeadlineOnWait } = require(${JSON.stringify(module)}); const t = Date.now();` +
        `withDeadlineOnWait(${work}, 300, 'w').then((v) => console.log('settled', v), (e) => console.log(e.name));` +
        `process.on('exit', () => console.log('exit', Date.now() - t));`;
      const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 10_000 });
      const ms = Number(/^exit (\d+)$/m.exec(r.stdout)?.[1]);
      return { out: r.stdout.split('\n')[0], ms };
    };
    const stuck = run('new Promise(() => {})');
    expect(stuck.out).toBe('DeadlineExceeded');
    expect(stuck.ms).toBeGreaterThanOrEqual(290);
    expect(stuck.ms).toBeLessThan(3_000);
    const soon = run("new Promise((r) => setTimeout(r, 30, 'soon'))");
    expect(soon.out).toBe('settled soon');
    expect(soon.ms).toBeLessThan(290);
  });
});

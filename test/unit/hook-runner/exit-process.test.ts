/**
 * dist/hook.cjs's exit (src/hook-runner/loader.ts exitProcess): process.reallyExit when nothing listens for `exit`,
 * else process.exit, so a listener still runs; process.exit too on a Node without reallyExit.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exitProcess } from '../../../src/hook-runner/loader.js';

const proc = process as unknown as { reallyExit?: (code: number) => never };

describe('exitProcess', () => {
  const real = Object.getOwnPropertyDescriptor(process, 'reallyExit');
  afterEach(() => {
    vi.restoreAllMocks();
    if (real) Object.defineProperty(process, 'reallyExit', real);
  });
  function stubs(listeners: number) {
    vi.spyOn(process, 'listenerCount').mockImplementation((name) => (name === 'exit' ? listeners : 0));
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const really = vi.fn();
    Object.defineProperty(process, 'reallyExit', { value: really, configurable: true, writable: true });
    return { exit, really };
  }

  it('ends in reallyExit with the code when no exit listener is there', () => {
    const { exit, really } = stubs(0);
    exitProcess(3);
    expect(really).toHaveBeenCalledWith(3);
    expect(exit).not.toHaveBeenCalled();
  });

  it('goes through process.exit when something listens for exit, or reallyExit is missing', () => {
    const { exit, really } = stubs(1);
    exitProcess(4);
    expect(exit).toHaveBeenCalledWith(4);
    expect(really).not.toHaveBeenCalled();
    proc.reallyExit = undefined;
    vi.mocked(process.listenerCount).mockReturnValue(0);
    exitProcess(5);
    expect(exit).toHaveBeenLastCalledWith(5);
  });
});

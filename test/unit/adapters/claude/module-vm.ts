/**
 * dist/claude-module.js loaded the way Claude Code's hooks-module runtime holds it (2.1.328, reference §10.2): a vm
 * context with no require, no process, no Buffer, no fetch and no code generation from strings.
 */
import vm from 'node:vm';

export type Hook = (...args: any[]) => Promise<unknown>;

/** The bundle's `export { register }` becomes an assignment so vm can run it as a script. */
export const MODULE_EXPORT = /export\s*\{\s*register\s*\}\s*;?\s*$/;

/** Runs the module's source in the sandbox and returns the handlers its register() put on, by event. */
export function loadModuleHooks(source: string): Record<string, Hook> {
  const script = source.replace(MODULE_EXPORT, 'globalThis.__register = register;');
  const ctx = vm.createContext(
    {
      TextEncoder,
      TextDecoder,
      URL,
      URLSearchParams,
      atob,
      btoa,
      console,
      setTimeout,
      clearTimeout,
      structuredClone,
      performance,
    },
    { codeGeneration: { strings: false, wasm: false } },
  );
  vm.runInContext(script, ctx);
  const hooks: Record<string, Hook> = {};
  (ctx as { __register: (on: (ev: string, h: Hook) => void) => void }).__register((ev, h) => {
    hooks[ev] = h;
  });
  return hooks;
}

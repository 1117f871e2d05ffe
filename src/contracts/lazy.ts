/**
 * Defers building a zod schema to its first use. A command hook is a fresh Node process per harness event, and
 * building every contract's schemas at module load was a large share of its start-up (bench/README.md): a dispatch
 * hook parses one payload and needs one schema. The stand-in behaves as the schema everywhere (parse, z.extend, shape,
 * options, z.infer), so callers never know.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const real = (): T => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => {
      const t = real();
      return Reflect.get(t, key, t);
    },
    set: (_, key, value) => Reflect.set(real(), key, value),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(real(), key);
      // The proxy's own target is an empty object: a descriptor reported as non-configurable would break the Proxy
      // invariants, so it is reported configurable (reads and writes still go to the real schema).
      return d && { ...d, configurable: true };
    },
    defineProperty: (_, key, d) => Reflect.defineProperty(real(), key, d),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}

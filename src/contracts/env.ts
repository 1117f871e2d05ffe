/** A process environment as tiergate reads it: passed explicitly (tests, the demo's sandbox), never mutated. */
export type Env = Record<string, string | undefined>;

// The type lives in src/contracts/check.ts: each harness's own checks (src/adapters/<harness>/doctor.ts) return it too.
export type { Check } from '../contracts/check.js';

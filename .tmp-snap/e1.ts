import * as z from 'zod/mini';
import * as a from '../src/contracts/observation.ts';
import * as b from '../src/contracts/config.ts';
import * as c from '../src/contracts/prices.ts';
import * as d from '../src/contracts/spool.ts';
z.config({ jitless: true });
(globalThis as any).x = [a, b, c, d];

import * as z from 'zod/mini';
z.config({ jitless: true });
(globalThis as any).x = z.object({ a: z.string() });

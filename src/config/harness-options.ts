/**
 * The policy keys harnesses own (HarnessDescriptor.options, listed in descriptors/index.ts HARNESS_OPTIONS), as config/
 * needs them: a zod schema per key for the loader, their defaults for the built-in policy. Nothing here names a key.
 */
import * as z from 'zod/mini';
import { HARNESS_OPTIONS } from '../descriptors/index.js';
import type { HarnessOption } from '../contracts/harness.js';

/** Its legal values as a schema: a boolean switch, or one of the listed strings. */
function schemaOf(o: HarnessOption): z.ZodMiniType {
  if (o.values.every((v) => typeof v === 'boolean')) return z.boolean();
  return z.enum(o.values as [string, ...string[]]);
}

/** Key -> schema, beside PolicySchema.shape in the loader (config/load.ts). */
export const HARNESS_OPTION_SCHEMAS: Readonly<Record<string, z.ZodMiniType>> = Object.fromEntries(
  Object.entries(HARNESS_OPTIONS).map(([key, o]) => [key, schemaOf(o)]),
);

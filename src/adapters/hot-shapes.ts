/**
 * The schemas the dispatch hook checks without zod (contracts/shape.ts), by name: its payloads, price rows and catalogs,
 * the policy file's sections and the harness-declared prices file. With these, a dispatch hook never loads zod. scripts/build-shapes.ts writes their
 * Shapes to src/contracts/hot-shapes.generated.json, which the hot path imports; test/unit/engine/shapes.test.ts keeps the two equal.
 * Build and test time only: importing this module builds the schemas.
 */
import type { Shape } from '../contracts/shape.js';
import { describeSchema } from '../contracts/shape-describe.js';
import { PolicySchema } from '../contracts/config.js';
import { CatalogSchema, PriceRowSchema } from '../contracts/prices.js';
import { DeclaredFileSchema } from '../prices/declared.js';
import { PreToolUsePayload as ClaudePreToolUse } from './claude/payloads.js';
import { PreToolUsePayloadSchema as CodexPreToolUse } from './codex/payloads.js';

export const HOT_SCHEMAS: Record<HotShapeName, unknown> = {
  claudePreToolUse: ClaudePreToolUse,
  codexPreToolUse: CodexPreToolUse,
  priceRow: PriceRowSchema,
  catalog: CatalogSchema,
  policy: PolicySchema,
  declaredFile: DeclaredFileSchema,
};

import type { HotShapeName } from '../contracts/shapes.js';
export type { HotShapeName };

export function hotPathShapes(): Record<HotShapeName, Shape> {
  const out = {} as Record<HotShapeName, Shape>;
  for (const [name, schema] of Object.entries(HOT_SCHEMAS)) out[name as HotShapeName] = describeSchema(schema);
  return out;
}

/** The committed file's text: stable key order and formatting, so the test can compare it byte for byte. */
export function serialiseShapes(shapes: Record<HotShapeName, Shape>): string {
  return `${JSON.stringify(shapes, null, 1)}\n`;
}

/** The committed Shapes of the hot-path schemas (src/adapters/hot-shapes.ts says where they come from), for checkShape. */
import type { Shape } from './shape.js';
import { SHAPE_TEXT } from './hot-shapes.generated.js';

export type HotShapeName = 'priceRow' | 'catalog' | 'policy' | 'declaredFile';

const parsed: Partial<Record<HotShapeName, Shape>> = {};

/** Each Shape is parsed from its text on first use: a hook process checks one or two of them. */
export const SHAPES = {} as Readonly<Record<HotShapeName, Shape>>;
for (const name of Object.keys(SHAPE_TEXT) as HotShapeName[]) {
  Object.defineProperty(SHAPES, name, {
    enumerable: true,
    get: () => (parsed[name] ??= JSON.parse(SHAPE_TEXT[name]) as Shape),
  });
}

/** The committed Shapes of the hot-path schemas (hot-shapes.ts says where they come from), typed for checkShape. */
import type { Shape } from '../contracts/shape.js';
import generated from './hot-shapes.generated.json';
import type { HotShapeName } from './hot-shapes.js';

export const SHAPES = generated as Record<HotShapeName, Shape>;

/** The committed Shapes of the hot-path schemas (src/adapters/hot-shapes.ts says where they come from), for checkShape. */
import type { Shape } from './shape.js';
import generated from './hot-shapes.generated.json';

export type HotShapeName = 'claudePreToolUse' | 'codexPreToolUse' | 'priceRow' | 'catalog' | 'policy' | 'declaredFile';

export const SHAPES = generated as Record<HotShapeName, Shape>;

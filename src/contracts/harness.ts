import * as z from 'zod/mini';
import { lazySchema } from './lazy.js';

/** Every harness tiergate plugs into. Defined once; adapters, doctor, installer and reports import it. */
export const HarnessSchema = lazySchema(() => z.enum(['claude', 'codex', 'cursor', 'opencode', 'pi']));
export type Harness = z.infer<typeof HarnessSchema>;

/** Tier names a brief or a config may use. `parent` means "the parent's own model". */
export const TierSchema = lazySchema(() => z.enum(['cheap', 'standard', 'premium', 'parent']));
export type Tier = z.infer<typeof TierSchema>;

export { CLAUDE_MODEL_ALIASES } from './aliases.js';

/**
 * What a harness lets tiergate do with a dispatch. The engine reads only this, never the harness name, to decide
 * whether it may correct or must deny.
 */
export const CapabilitySchema = lazySchema(() => z.object({
  /** The harness honours a rewritten dispatch (seen per harness in the reference). */
  canRewrite: z.boolean(),
  /** The tool-input field a correction sets (`model`, `subagent_type`, `agent`), or null when none. */
  rewriteField: z.nullable(z.string()),
  /** Whether the field names a model (or model alias) or an agent/profile whose model the config maps. */
  rewriteKind: z.enum(['model', 'agent']),
  /** Values the field accepts; null = any model id the catalog prices. Claude: the four aliases only. */
  legalValues: z.nullable(z.array(z.string())),
  /** The harness shows a deny reason to the model so it can retry. */
  canDeny: z.boolean(),
}));
export type Capability = z.infer<typeof CapabilitySchema>;

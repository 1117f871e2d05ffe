/**
 * A descriptor (contracts/harness.ts HarnessDescriptor) from what sets a harness apart, so each src/descriptors/<id>.ts
 * states only that: the field a correction sets (or none), the legal values where the harness limits them, its default
 * tiers, its dispatch events. Every harness tiergate supports shows a deny reason to the model (canDeny).
 */
import type { Capability, HarnessDescriptor, HarnessOptionValues } from '../contracts/harness.js';

/** The field a correction sets and what it names; null: the harness honours no rewrite (deny-with-retry only). */
export type Rewrite = { field: string; kind: Capability['rewriteKind']; legalValues?: readonly string[] } | null;

/** A descriptor less its id: the registry line (descriptors/index.ts) names the harness. */
export type HarnessFacts = Omit<HarnessDescriptor, 'id'>;

type Declared = Omit<HarnessFacts, 'capability' | 'documentationOnly' | 'reportsUsage'> & {
  /** The rewrite it honours, or a function of the policy's keys the harness owns (Codex's rewrite switch). */
  rewrite: Rewrite | ((policy: HarnessOptionValues) => Rewrite);
  documentationOnly?: boolean;
  /** Default true: its completions carry token usage. */
  reportsUsage?: boolean;
};

export function defineHarness({
  rewrite,
  documentationOnly = false,
  reportsUsage = true,
  ...facts
}: Declared): HarnessFacts {
  const capability = (policy: HarnessOptionValues): Capability => {
    const r = typeof rewrite === 'function' ? rewrite(policy) : rewrite;
    return {
      canRewrite: r !== null,
      rewriteField: r?.field ?? null,
      rewriteKind: r?.kind ?? 'model',
      legalValues: r?.legalValues ? [...r.legalValues] : null,
      canDeny: true,
    };
  };
  return { ...facts, documentationOnly, reportsUsage, capability };
}

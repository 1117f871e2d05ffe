/**
 * What a harness honours at dispatch: its descriptor's (src/descriptors/<harness>.ts), established against the
 * real binaries (reference, seen) except Cursor (documentation only). Adapters and `tiergate explain` read it here.
 */
import type { Capability, Harness, HarnessOptionValues } from '../contracts/harness.js';
import { DESCRIPTORS } from '../descriptors/index.js';

export function capabilityFor(harness: Harness, policy: HarnessOptionValues): Capability {
  return DESCRIPTORS[harness].capability(policy);
}

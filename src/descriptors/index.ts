/**
 * Every harness's descriptor (contracts/harness.ts HarnessDescriptor), by id: the light half of the registry, for what
 * must not load adapters (the dispatch hook's policy defaults, dist/hook.cjs's choice of bundle, written in by
 * scripts/build.mjs). The whole modules are in src/adapters/index.ts. The files here name no id: each line of
 * descriptors/facts.ts does (the registry line).
 *
 * Why not src/adapters/<id>/descriptor.ts: the policy defaults (config/), the price aliases (prices/) and the dispatch
 * hook read these from layers below the adapters, and a layer is a folder (.dependency-cruiser.cjs): a descriptor in an
 * adapter's folder would need a per-file carve-out of that folder.
 */
import type { HarnessDescriptor, HarnessOption } from '../contracts/harness.js';
import { HARNESS_IDS, type Harness } from '../contracts/harness-ids.js';
import { FACTS } from './facts.js';

/** The harnesses this build carries: every one, but a dispatch bundle's own alone (descriptors/facts.ts). */
const CARRIED = HARNESS_IDS.filter((h) => Object.hasOwn(FACTS, h));

export const DESCRIPTORS = Object.fromEntries(CARRIED.map((h) => [h, { id: h, ...FACTS[h] }])) as Readonly<
  Record<Harness, HarnessDescriptor>
>;

// The tables below are pure (built in a function marked so): a bundle that uses none of them (a dispatch bundle) drops
// them instead of building them at its top level.

/** `<harness>:<event>` -> the hook runner's deadline for a lifecycle event with a short manifest timeout (eventDeadlinesMs). */
export const EVENT_DEADLINE_CAPS: Readonly<Record<string, number>> = /* @__PURE__ */ (() =>
  Object.fromEntries(
    CARRIED.flatMap((h) =>
      Object.entries(DESCRIPTORS[h].eventDeadlinesMs ?? {}).map(([event, ms]) => [`${h}:${event}`, ms]),
    ),
  ))();

/** Harness id -> the command-hook events its dispatch bundle serves (dist/hook-dispatch-<id>.cjs); scripts/build.mjs
 * writes it into dist/hook.cjs as a literal. */
export const DISPATCH_EVENTS: Readonly<Record<string, readonly string[]>> = /* @__PURE__ */ (() =>
  Object.fromEntries(
    CARRIED.filter((h) => DESCRIPTORS[h].dispatchEvents.length > 0).map((h) => [h, DESCRIPTORS[h].dispatchEvents]),
  ))();

/** Policy key -> the harness option it is (HarnessDescriptor.options): what config/ validates, defaults and judges. */
export const HARNESS_OPTIONS: Readonly<Record<string, HarnessOption>> = /* @__PURE__ */ (() =>
  Object.fromEntries(CARRIED.flatMap((h) => Object.entries(DESCRIPTORS[h].options ?? {}))))();

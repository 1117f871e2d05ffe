/**
 * Every harness's descriptor (contracts/harness.ts HarnessDescriptor), by id: the light half of the registry, for what
 * must not load adapters (the dispatch hook's policy defaults, dist/hook.cjs's choice of bundle, written in by
 * scripts/build.mjs). The whole modules are in src/adapters/index.ts. Typed by the id list, so a harness added there
 * and missing here does not compile. The files here name no id: each line below does (the registry line).
 *
 * Why not src/adapters/<id>/descriptor.ts: the policy defaults (config/), the price aliases (prices/) and the dispatch
 * hook read these from layers below the adapters, and a layer is a folder (.dependency-cruiser.cjs): a descriptor in an
 * adapter's folder would need a per-file carve-out of that folder.
 */
import type { HarnessDescriptor, HarnessOption } from '../contracts/harness.js';
import type { HarnessFacts } from './define.js';
import { HARNESS_IDS, type Harness } from '../contracts/harness-ids.js';
import { claudeHarness } from './claude.js';
import { codexHarness } from './codex.js';
import { cursorHarness } from './cursor.js';
import { opencodeHarness } from './opencode.js';
import { piHarness } from './pi.js';
import { geminiHarness } from './gemini.js';
import { copilotHarness } from './copilot.js';
import { grokHarness } from './grok.js';
import { hermesHarness } from './hermes.js';

const FACTS: Readonly<Record<Harness, HarnessFacts>> = {
  claude: claudeHarness,
  codex: codexHarness,
  cursor: cursorHarness,
  opencode: opencodeHarness,
  pi: piHarness,
  gemini: geminiHarness,
  copilot: copilotHarness,
  grok: grokHarness,
  hermes: hermesHarness,
};

export const DESCRIPTORS = Object.fromEntries(HARNESS_IDS.map((h) => [h, { id: h, ...FACTS[h] }])) as Readonly<
  Record<Harness, HarnessDescriptor>
>;

/** `<harness>:<event>` -> the hook runner's deadline for a lifecycle event with a short manifest timeout (eventDeadlinesMs). */
export const EVENT_DEADLINE_CAPS: Readonly<Record<string, number>> = /* @__PURE__ */ (() =>
  Object.fromEntries(
    HARNESS_IDS.flatMap((h) =>
      Object.entries(DESCRIPTORS[h].eventDeadlinesMs ?? {}).map(([event, ms]) => [`${h}:${event}`, ms]),
    ),
  ))();

/** Harness id -> the command-hook events its dispatch bundle serves (dist/hook-dispatch-<id>.cjs); scripts/build.mjs
 * writes it into dist/hook.cjs as a literal. */
export const DISPATCH_EVENTS: Readonly<Record<string, readonly string[]>> = /* @__PURE__ */ (() =>
  Object.fromEntries(
    HARNESS_IDS.filter((h) => DESCRIPTORS[h].dispatchEvents.length > 0).map((h) => [h, DESCRIPTORS[h].dispatchEvents]),
  ))();

/** Policy key -> the harness option it is (HarnessDescriptor.options): what config/ validates, defaults and judges. */
export const HARNESS_OPTIONS: Readonly<Record<string, HarnessOption>> = /* @__PURE__ */ (() =>
  Object.fromEntries(HARNESS_IDS.flatMap((h) => Object.entries(DESCRIPTORS[h].options ?? {}))))();

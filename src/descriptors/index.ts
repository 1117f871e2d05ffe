/**
 * Every harness's descriptor (contracts/harness.ts HarnessDescriptor), by id: the light half of the registry, for what
 * must not load adapters (the dispatch hook's policy defaults, dist/hook.cjs's choice of bundle, written in by
 * scripts/build.mjs). The whole modules are in ./index.ts. Typed by the id list, so a harness added there and missing
 * here does not compile.
 */
import type { HarnessDescriptor } from '../contracts/harness.js';
import { HARNESS_IDS, type Harness } from '../contracts/harness-ids.js';
import { claudeDescriptor } from './claude.js';
import { codexDescriptor } from './codex.js';
import { cursorDescriptor } from './cursor.js';
import { opencodeDescriptor } from './opencode.js';
import { piDescriptor } from './pi.js';
import { geminiDescriptor } from './gemini.js';
import { copilotDescriptor } from './copilot.js';
import { grokDescriptor } from './grok.js';
import { hermesDescriptor } from './hermes.js';

export const DESCRIPTORS: Readonly<Record<Harness, HarnessDescriptor>> = {
  claude: claudeDescriptor,
  codex: codexDescriptor,
  cursor: cursorDescriptor,
  opencode: opencodeDescriptor,
  pi: piDescriptor,
  gemini: geminiDescriptor,
  copilot: copilotDescriptor,
  grok: grokDescriptor,
  hermes: hermesDescriptor,
};

/** `<harness>:<event>` -> the hook runner's deadline for a lifecycle event with a short manifest timeout (eventDeadlinesMs). */
export const EVENT_DEADLINE_CAPS: Readonly<Record<string, number>> = Object.fromEntries(
  HARNESS_IDS.flatMap((h) =>
    Object.entries(DESCRIPTORS[h].eventDeadlinesMs ?? {}).map(([event, ms]) => [`${h}:${event}`, ms]),
  ),
);

/** Harness id -> the command-hook events its dispatch bundle serves (dist/hook-dispatch-<id>.cjs); scripts/build.mjs
 * writes it into dist/hook.cjs as a literal. */
export const DISPATCH_EVENTS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  HARNESS_IDS.filter((h) => DESCRIPTORS[h].dispatchEvents.length > 0).map((h) => [h, DESCRIPTORS[h].dispatchEvents]),
);

/**
 * The harness registry: every HarnessModule (src/adapters/<id>/index.ts), in the order tiergate lists harnesses.
 * Generic code reads harnesses from here; the dispatch hook never loads it (see harness-module.ts). Typed by the id
 * list (contracts/harness.ts), so a harness added there and missing here does not compile.
 */
import { HARNESS_IDS, type Harness } from '../contracts/harness.js';
import { claude } from './claude/index.js';
import { codex } from './codex/index.js';
import { cursor } from './cursor/index.js';
import type { HarnessModule } from './harness-module.js';
import { opencode } from './opencode/index.js';
import { pi } from './pi/index.js';
import { gemini } from './gemini/index.js';
import { copilot } from './copilot/index.js';
import { grok } from './grok/index.js';
import { hermes } from './hermes/index.js';

export type { HarnessModule } from './harness-module.js';

export const HARNESSES: Readonly<Record<Harness, HarnessModule>> = {
  claude,
  codex,
  cursor,
  opencode,
  pi,
  gemini,
  copilot,
  grok,
  hermes,
};

/** Every harness module, in HARNESS_IDS order. */
export const harnessList = (): HarnessModule[] => HARNESS_IDS.map((id) => HARNESSES[id]);

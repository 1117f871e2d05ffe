/**
 * The registry line of every harness: its id and its facts (descriptors/index.ts builds the descriptors from them).
 * Typed by the id list, so a harness added there and missing here does not compile.
 *
 * A dispatch bundle (dist/hook-dispatch-<id>.cjs) serves one harness: scripts/build.mjs builds it with this file as that
 * harness's line alone (`<id>Harness` from ./<id>.ts), so the other eight descriptors are neither bundled nor built at
 * the top level of every dispatch hook (bench/README.md, session 16). Nothing in a dispatch bundle looks up another
 * harness's descriptor: its adapter table holds its own harness only (src/entries/hook-dispatch-<id>.ts).
 */
import type { HarnessFacts } from './define.js';
import type { Harness } from '../contracts/harness-ids.js';
import { claudeHarness } from './claude.js';
import { codexHarness } from './codex.js';
import { cursorHarness } from './cursor.js';
import { opencodeHarness } from './opencode.js';
import { piHarness } from './pi.js';
import { geminiHarness } from './gemini.js';
import { copilotHarness } from './copilot.js';
import { grokHarness } from './grok.js';
import { hermesHarness } from './hermes.js';

export const FACTS: Readonly<Record<Harness, HarnessFacts>> = {
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

/**
 * The model id Gemini CLI 0.61.0 puts on the wire for a model name an agent definition (or `-m`) gives: it resolves
 * names through its bundled `modelIdResolutions` table before sending (packages/core/src/config/models.ts, source),
 * and `gemini-3-pro-preview` in an agent's frontmatter went out as `gemini-3.1-pro-preview-customtools` (seen, with a
 * Gemini API key: Gemini 3.1 launched, custom-tools model on, preview access). tiergate prices what is sent, so an
 * agent's model is resolved here the same way before the engine compares it with the parent's (which the parent's
 * chat file already records as sent).
 *
 * The table is the 0.61.0 default under the flags seen; other accounts can resolve differently (no preview access
 * sends `gemini-2.5-pro` for the pro names: cheaper, so a decision taken on the table's id never lets a pricier child
 * through on that account). A name not listed goes out unchanged (`gemini-2.5-flash` was seen so).
 */
const PRO_3 = 'gemini-3.1-pro-preview-customtools';

const WIRE: Readonly<Record<string, string>> = {
  'gemini-3-pro-preview': PRO_3, // seen
  'gemini-3.1-pro-preview': PRO_3, // source: useCustomTools, the flag the seen child had
  auto: PRO_3, // source: the `pro` chain
  pro: PRO_3,
  'auto-gemini-3': PRO_3,
  'auto-gemini-2.5': 'gemini-2.5-pro',
  flash: 'gemini-3-flash-preview', // source: useLatestFlash off
  'flash-lite': 'gemini-3.1-flash-lite',
};

/** The frontmatter value that means "the session's model" (0.61.0: absent `model:` is the same). */
export const INHERIT = 'inherit';

/** The id Gemini CLI sends for `name`, and whether that differs from the name (for agentModelFrom's note). */
export function wireModel(name: string): { model: string; resolved: boolean } {
  const key = name.trim();
  const hit = Object.hasOwn(WIRE, key) ? WIRE[key]! : null;
  return hit ? { model: hit, resolved: hit !== key } : { model: key, resolved: false };
}

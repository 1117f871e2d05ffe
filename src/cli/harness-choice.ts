/**
 * `--harness` for the commands that price or decide one model (explain, prices show). There is no default harness: a
 * model means a different thing per harness (an alias, a tier value), and guessing one priced it as another's. Left
 * out, it is inferred where exactly one harness knows the model (its tier map names it, or its own alias tables
 * resolve it), asked for on a terminal, and otherwise refused with the choices, on one line.
 */
import { createInterface } from 'node:readline/promises';
import type { Policy } from '../contracts/config.js';
import { HARNESS_IDS, HarnessSchema, type Harness } from '../contracts/harness.js';
import type { PriceLookup } from '../contracts/prices.js';
import { unknownValue } from './suggest.js';

/** The question and the answer typed, or null where no one can answer (not a terminal). */
export type Ask = (question: string) => Promise<string>;

export type HarnessChoice = { harness: Harness } | { error: string };

/**
 * The harnesses that know any of `models`: a value of their tier map (the policy's), or a name their own alias tables
 * resolve (`prices`, where the command has a lookup). In the id list's order.
 */
export function harnessesKnowing(
  models: readonly string[],
  tiers: Policy['tiers'],
  prices?: Pick<PriceLookup, 'resolve'>,
): Harness[] {
  const names = models.map((m) => m.trim().toLowerCase()).filter(Boolean);
  return HARNESS_IDS.filter((h) => {
    const mapped = new Set(Object.values(tiers[h] ?? {}).map((v) => v?.toLowerCase()));
    return names.some((m) => mapped.has(m) || prices?.resolve(m, h).how === 'alias');
  });
}

/**
 * The harness named by `flag`, else the one harness in `known`, else the one the user picks when `ask` is given, else
 * an error listing the choices (`known` where two or more know the models, every harness where none does).
 */
export async function chooseHarness(
  flag: string | undefined,
  models: readonly string[],
  known: readonly Harness[],
  ask: Ask | null,
): Promise<HarnessChoice> {
  if (flag !== undefined) {
    const named = HarnessSchema.safeParse(flag);
    return named.success ? { harness: named.data } : { error: unknownValue('--harness', flag, HarnessSchema.options) };
  }
  if (known.length === 1) return { harness: known[0]! };
  const choices = known.length > 1 ? known : HARNESS_IDS;
  const what = models.length ? models.map((m) => `'${m}'`).join(', ') : 'no model';
  const why =
    known.length > 1 ? `${what} is known to ${known.join(', ')}` : `no harness's tiers or aliases name ${what}`;
  if (!ask) return { error: `name the harness with --harness (one of ${choices.join(', ')}): ${why}` };
  const typed = (await ask(`Which harness? ${why} (${choices.join(', ')}): `)).trim();
  const picked = choices.find((h) => h === typed.toLowerCase());
  return picked ? { harness: picked } : { error: unknownValue('--harness', typed, choices) };
}

/** A question on stderr answered on stdin, when both are a terminal; null otherwise (a pipe, CI: never wait). */
export function terminalAsk(
  stdin: NodeJS.ReadStream = process.stdin,
  stderr: NodeJS.WriteStream = process.stderr,
): Ask | null {
  if (!stdin.isTTY || !stderr.isTTY) return null;
  return async (question) => {
    const rl = createInterface({ input: stdin, output: stderr });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  };
}

/**
 * "Did you mean": the known word nearest a mistyped one (a command, a flag, a --harness or --by value). Optimal string
 * alignment distance (a swap of two neighbours counts once: `reprot`), within a third of the word's length, at least 1;
 * a unique known word that starts with the typed text counts too (`--harn` for `--harness`).
 */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

export function closest(typed: string, known: readonly string[]): string | null {
  const t = typed.toLowerCase();
  if (!t) return null;
  const starts = known.filter((k) => k.toLowerCase().startsWith(t));
  if (starts.length === 1) return starts[0]!;
  let best: string | null = null;
  let bestD = Math.max(1, Math.floor(t.length / 3)) + 1;
  for (const k of known) {
    const dk = distance(t, k.toLowerCase());
    if (dk < bestD) (best = k), (bestD = dk);
  }
  return best;
}

/** `unknown --by 'projetc': did you mean 'project'?` or, with none near, `unknown --by 'x' (one of day, …)`. */
export function unknownValue(what: string, typed: string, known: readonly string[]): string {
  const near = closest(typed, known);
  return `unknown ${what} '${typed}'${near ? `: did you mean '${near}'?` : ` (one of ${known.join(', ')})`}`;
}

/**
 * Did the harness serve the model the child was dispatched with? The ledger keeps the requested name as the harness
 * took it (often an alias: Claude Code's Agent tool only accepts haiku/sonnet/opus/fable, 2.1.328) and the served id
 * from the transcript, so plain string equality would flag every alias. Pure, name-only: no catalog needed.
 */

function normalize(name: string): string {
  let n = name.trim().toLowerCase();
  // Provider prefixes: "anthropic/claude-…", "openai/gpt-…" (OpenCode, pi), Bedrock's "us.anthropic.claude-…".
  n = n.slice(n.lastIndexOf('/') + 1);
  n = n.replace(/^(?:[a-z]{2}\.)?anthropic\./, '');
  // Date stamps and version suffixes a served id carries and a request does not: -20250929, @20250929, -v1:0, -latest.
  n = n
    .replace(/[-@]\d{8}$/, '')
    .replace(/-v\d+(?::\d+)?$/, '')
    .replace(/-latest$/, '');
  return n;
}

/** null when either side is unknown (nothing to compare), else whether the served model is the one requested. */
export function servedMatchesRequested(requested: string | null, served: string | null): boolean | null {
  if (!requested || !served) return null;
  const r = normalize(requested);
  const s = normalize(served);
  if (r === s) return true;
  // A bare family alias (no digits: "haiku", "sonnet") matches any served id of that family.
  if (!/\d/.test(r)) return s.split(/[-.]/).includes(r);
  return false;
}

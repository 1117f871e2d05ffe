/**
 * Whether someone can answer Claude Code's permission prompt in this session (issue 33 item 3). Claude Code 2.1.332
 * gives its hooks CLAUDE_CODE_SESSION_ATTENDED=1 in the TUI and 0 under `-p` (with CLAUDE_CODE_ENTRYPOINT `cli` and
 * `sdk-cli`; seen). A hook's `permissionDecision: "ask"` under `-p` is a denial whatever the permission mode (default,
 * acceptEdits, plan, dontAsk, auto, --allowedTools Agent; seen), so only an attended session is asked; absent or
 * anything else counts as headless, which gets the non-ask action.
 */
export const attended = (env: Readonly<Record<string, string | undefined>>): boolean =>
  env.CLAUDE_CODE_SESSION_ATTENDED === '1';

/** Set by the hooks module when it arms the PreToolUse command hook to decide (and ask) in its place. */
export const ASK_VAR = 'TIERGATE_ASK';

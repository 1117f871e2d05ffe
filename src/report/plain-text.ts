/**
 * Ledger strings (agent, model, session names: whatever a harness or a repository's agent file wrote) on their way to a
 * terminal or a spreadsheet. A terminal obeys what it is sent: an ESC or C1 CSI starts a control sequence (move the
 * cursor, rewrite a line, set the window title), BEL rings; bidi overrides reorder what follows. CSV opened in a
 * spreadsheet runs a cell that starts like a formula.
 */

/** C0 (including tab, CR and LF: a cell is one line), DEL, C1, and the bidi embedding/override/isolate controls. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** A ledger string as terminal text: every control character stripped. */
export function plain(s: string): string {
  return s.replace(CONTROL, '');
}

/**
 * OWASP's CSV-injection advice: a text cell starting with `=`, `+`, `-`, `@`, tab or CR is prefixed with `'`, so a
 * spreadsheet shows it as text instead of evaluating it. Only for text: a number (`-0.12` savings) stays a number.
 */
export function csvText(s: string): string {
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

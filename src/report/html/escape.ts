/** Escaping for the HTML report: every ledger string (model names, session ids, agent types) passes through here. */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text and attribute values (double- or single-quoted). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/**
 * JSON inside `<script type="application/json">`: `<`, `>` and `&` become \u escapes so no ledger string can close the
 * element or open a comment; U+2028/2029 too (valid JSON, but not valid in older JS string literals).
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Code inlined in a `<script>`: `</script` inside it would end the element early (in a JS string `<\/` is `</`). */
export function scriptSafe(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

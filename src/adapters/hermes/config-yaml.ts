/**
 * tiergate's entry in Hermes' `config.yaml` `plugins.enabled` (Hermes 0.19.0 loads a user plugin only when its name is
 * listed there), edited as TEXT so the user's comments, order and quoting stay as they were: every line tiergate adds
 * ends in MARK, and uninstall takes out exactly those lines (or the `, tiergate` it put in a flow list), so an install
 * and an uninstall leave the file byte for byte as it was. A shape this cannot edit safely is refused with the command
 * that does it by hand. Pure.
 */
export const PLUGIN_NAME = 'tiergate';
export const MARK = '  # added by tiergate';

export type YamlEdit = { ok: true; text: string; already: boolean } | { ok: false; reason: string };

const TOP_PLUGINS = /^plugins:[ \t]*(#.*)?$/;
const indentOf = (line: string): number => line.length - line.trimStart().length;
const blankOrComment = (line: string): boolean => line.trim() === '' || line.trim().startsWith('#');
const FLOW = /^(\s*enabled:\s*\[)([^\]#]*)(\][ \t]*(#.*)?)$/;

function flowItems(inner: string): string[] {
  return inner
    .split(',')
    .map((s) => s.trim().replace(/^['"]|['"]$/g, ''))
    .filter((s) => s !== '');
}

export function addEnabled(text: string | null): YamlEdit {
  const src = text ?? '';
  const block = [`plugins:${MARK}`, `  enabled:${MARK}`, `    - ${PLUGIN_NAME}${MARK}`];
  if (src.trim() === '') return { ok: true, text: src + block.map((l) => `${l}\n`).join(''), already: false };
  if (!src.endsWith('\n')) return { ok: false, reason: 'config.yaml does not end with a newline' };
  const lines = src.slice(0, -1).split('\n');
  const at = lines.findIndex((l) => TOP_PLUGINS.test(l));
  if (at < 0) {
    if (lines.some((l) => /^plugins\s*:/.test(l))) return { ok: false, reason: 'config.yaml has `plugins:` inline' };
    return { ok: true, text: src + block.map((l) => `${l}\n`).join(''), already: false };
  }
  let end = at + 1;
  while (end < lines.length && (blankOrComment(lines[end]!) || indentOf(lines[end]!) > 0)) end++;
  const body = lines.slice(at + 1, end);
  const childIndent = body.find((l) => !blankOrComment(l)) ?? '  ';
  const ci = indentOf(childIndent) || 2;
  const en = body.findIndex((l) => indentOf(l) === ci && /^\s*enabled\s*:/.test(l));
  if (en < 0) {
    lines.splice(at + 1, 0, `${' '.repeat(ci)}enabled:${MARK}`, `${' '.repeat(ci + 2)}- ${PLUGIN_NAME}${MARK}`);
    return { ok: true, text: `${lines.join('\n')}\n`, already: false };
  }
  const line = body[en]!;
  const flow = FLOW.exec(line);
  if (flow) {
    const items = flowItems(flow[2]!);
    if (items.includes(PLUGIN_NAME)) return { ok: true, text: src, already: true };
    const inner = flow[2]!.trimEnd();
    const grown = inner.trim() === '' ? PLUGIN_NAME : `${inner}, ${PLUGIN_NAME}`;
    lines[at + 1 + en] = `${flow[1]}${grown}${flow[3]}`;
    return { ok: true, text: `${lines.join('\n')}\n`, already: false };
  }
  if (!/^\s*enabled\s*:[ \t]*(#.*)?$/.test(line))
    return { ok: false, reason: 'config.yaml `plugins.enabled` is not a list' };
  let itemEnd = en + 1;
  while (itemEnd < body.length && (blankOrComment(body[itemEnd]!) || indentOf(body[itemEnd]!) > ci)) itemEnd++;
  const items = body.slice(en + 1, itemEnd).filter((l) => /^\s*-\s/.test(l));
  if (items.some((l) => flowItems(l.replace(/^\s*-\s*/, '').replace(/\s+#.*$/, ''))[0] === PLUGIN_NAME))
    return { ok: true, text: src, already: true };
  const ii = items[0] ? indentOf(items[0]) : ci + 2;
  lines.splice(at + 1 + en + 1, 0, `${' '.repeat(ii)}- ${PLUGIN_NAME}${MARK}`);
  return { ok: true, text: `${lines.join('\n')}\n`, already: false };
}

/** What addEnabled added, taken out: the MARK lines, and `tiergate` from a flow list. */
export function removeEnabled(text: string): string {
  const kept = text.split('\n').filter((l) => !l.endsWith(MARK));
  return kept
    .map((l) => {
      const flow = FLOW.exec(l);
      if (!flow || !flowItems(flow[2]!).includes(PLUGIN_NAME)) return l;
      const inner = flow[2]!.replace(new RegExp(`(,\\s*)?['"]?${PLUGIN_NAME}['"]?\\s*(?=$)`), '');
      return `${flow[1]}${inner === flow[2] ? flow[2] : inner}${flow[3]}`;
    })
    .join('\n');
}

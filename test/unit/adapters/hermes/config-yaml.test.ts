/** tiergate's entry in Hermes' config.yaml plugins.enabled, edited as text: every shape added and taken back out byte-exact. */
import { describe, expect, it } from 'vitest';
import { addEnabled, removeEnabled } from '../../../../src/adapters/hermes/config-yaml.js';

const SHAPES: Array<[string, string | null]> = [
  ['no file', null],
  ['empty', ''],
  ['no plugins key', '# top\nmodel: x  # kept\n'],
  ['flow list', 'plugins:\n  enabled: [a, "b"]  # c\n'],
  ['empty flow list', 'plugins:\n  enabled: []\n'],
  ['block list', 'plugins:\n  # mine\n  enabled:\n    - a\n  disabled: [z]\nx: 1\n'],
  ['plugins without enabled', 'plugins:\n    disabled: [a]\nother: 2\n'],
];

describe('Hermes config.yaml plugins.enabled', () => {
  it.each(SHAPES)('%s: tiergate added once, removed byte-exact', (_n, text) => {
    const added = addEnabled(text);
    expect(added.ok).toBe(true);
    if (!added.ok) return;
    expect(added.already).toBe(false);
    expect(added.text).toMatch(/^\s*(- tiergate|enabled: \[.*tiergate\])/m);
    const again = addEnabled(added.text);
    expect(again).toEqual({ ok: true, text: added.text, already: true });
    expect(removeEnabled(added.text)).toBe(text ?? '');
  });

  it('keeps the indentation of the block it joins', () => {
    const added = addEnabled('plugins:\n    enabled:\n        - a\n');
    expect(added).toMatchObject({
      ok: true,
      text: 'plugins:\n    enabled:\n        - tiergate  # added by tiergate\n        - a\n',
    });
  });

  it.each([
    ['inline plugins', 'plugins: {enabled: [a]}\n'],
    ['no final newline', 'model: x'],
    ['enabled a scalar', 'plugins:\n  enabled: a\n'],
  ])('refuses %s', (_n, text) => {
    expect(addEnabled(text).ok).toBe(false);
  });
});

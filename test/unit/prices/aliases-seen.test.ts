/**
 * The Claude alias table against what Claude Code 2.1.328 actually sent to the model API in the recorded runs
 * (test/fixtures/claude, first-party API): the alias in the Agent call (or the hook's rewrite) must resolve to the
 * model id the child's requests carried.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPriceLookup } from '../../../src/prices/lookup.js';
import { bundled, ROOT } from './catalog.js';

interface Fixture {
  tool_input: { model?: string };
  _meta: { run_outcome: { parentModels: string[]; childModels: string[] }; hook_output_returned?: { stdout: string } };
}
const load = (f: string): Fixture => JSON.parse(readFileSync(join(ROOT, 'test/fixtures/claude', f), 'utf8'));
const lookup = createPriceLookup([bundled], { claudeProvider: 'anthropic' });

describe('Claude aliases resolve to the ids Claude Code sent (seen)', () => {
  it.each(['PreToolUse.basic.json', 'PreToolUse.parent-sonnet.json'])('%s: the requested alias', (f) => {
    const fx = load(f);
    expect(lookup.resolve(fx.tool_input.model!, 'claude').id).toBe(fx._meta.run_outcome.childModels[0]);
  });

  it('PreToolUse.rewrite.json: the alias the hook rewrote to', () => {
    const fx = load('PreToolUse.rewrite.json');
    const rewritten = JSON.parse(fx._meta.hook_output_returned!.stdout).hookSpecificOutput.updatedInput.model;
    expect(rewritten).toBe('haiku');
    expect(lookup.resolve(rewritten, 'claude').id).toBe(fx._meta.run_outcome.childModels[0]);
  });

  it('the parent ids seen are priced exactly', () => {
    for (const f of ['PreToolUse.basic.json', 'PreToolUse.parent-sonnet.json']) {
      const parent = load(f)._meta.run_outcome.parentModels[0]!;
      expect(lookup.resolve(parent, 'claude')).toMatchObject({ id: parent, how: 'exact' });
    }
  });
});

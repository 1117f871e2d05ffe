/** Property tests over the real bundled catalog: resolution is idempotent and an estimate never crosses a variant. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPriceLookup } from '../../../src/prices/lookup.js';
import { canonicalId, shapeOf } from '../../../src/prices/normalise.js';
import { bundled } from './catalog.js';

const lookup = createPriceLookup([bundled], { claudeProvider: 'anthropic' });
const keys = Object.keys(bundled.models);
const canonicalKeys = keys.filter((k) => canonicalId(k) === k);
const harness = fc.constantFrom('claude', 'codex', 'opencode', 'pi', 'cursor' as const);

/** A name as harnesses and routers decorate it. */
const decorated = fc
  .record({
    id: fc.constantFrom(...canonicalKeys),
    prefix: fc.constantFrom('', 'openrouter/', 'azure/', 'anthropic/', 'openai/', 'provider/'),
    suffix: fc.constantFrom('', '-20260101', '[1m]', '@20250929', '-2026-09-03'),
    upper: fc.boolean(),
  })
  .map(({ id, prefix, suffix, upper }) => {
    const s = `${prefix}${id}${suffix}`;
    return { id, name: upper ? s.toUpperCase() : s };
  });

describe('resolution properties', () => {
  it('resolving a resolved id gives itself, exactly', () => {
    let resolved = 0;
    fc.assert(
      fc.property(fc.constantFrom(...keys), harness, (k, h) => {
        const first = lookup.resolve(k, h);
        if (first.id === null) return;
        resolved += 1;
        const again = lookup.resolve(first.id, h);
        expect(again.id).toBe(first.id);
        expect(again.how).toBe('exact');
      }),
      { numRuns: 500 },
    );
    // Enough cases got past the early return for the check to mean something.
    expect(resolved).toBeGreaterThan(400);
  });

  it('is idempotent for decorated names and aliases too', () => {
    let resolved = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          decorated.map((d) => d.name),
          fc.constantFrom('opus', 'sonnet', 'haiku', 'fable', 'opus[1m]'),
        ),
        harness,
        (name, h) => {
          const r = lookup.resolve(name, h);
          if (r.id === null) return;
          resolved += 1;
          expect(lookup.resolve(r.id, h).id).toBe(r.id);
        },
      ),
      { numRuns: 500 },
    );
    expect(resolved).toBeGreaterThan(100);
  });

  it('a decorated catalog id resolves to that id (not estimated, not unknown)', () => {
    fc.assert(
      fc.property(decorated, ({ id, name }) => {
        const r = lookup.resolve(name, 'opencode');
        expect(r.id).toBe(id);
        expect(['exact', 'normalised']).toContain(r.how);
      }),
      { numRuns: 500 },
    );
  });

  it('an estimate keeps the family, the variant and the major version', () => {
    const versioned = canonicalKeys.filter((k) => shapeOf(k).versions.length > 0);
    const bumped = fc
      .record({
        id: fc.constantFrom(...versioned),
        bump: fc.integer({ min: 1, max: 9 }),
        where: fc.constantFrom('major', 'minor'),
      })
      .map(({ id, bump, where }) => {
        const s = shapeOf(id);
        const v = s.versions.map((g) => [...g]);
        if (where === 'major') v[0]![0]! += bump;
        else v[0]![1] = (v[0]![1] ?? 0) + bump;
        let i = 0;
        // Rebuild the id with the same words and the bumped numbers (dots for gpt/qwen-style, dashes for Claude).
        const sep = id.startsWith('claude-') ? '-' : '.';
        return s.shape.replace(/#/g, () => v[i++]!.join(sep));
      });
    let estimated = 0;
    fc.assert(
      fc.property(bumped, (query) => {
        // Compared with the query as normalised (`claude-4-haiku` is read as `claude-haiku-4`).
        const { shape, versions } = shapeOf(canonicalId(query));
        const major = versions[0]![0];
        const r = lookup.resolve(query, 'opencode');
        if (r.how !== 'estimated') return;
        estimated += 1;
        const got = shapeOf(r.id!);
        expect(got.shape).toBe(shape);
        expect(got.versions[0]![0]).toBe(major);
      }),
      { numRuns: 1000 },
    );
    expect(estimated).toBeGreaterThan(200);
  });

  it('never crosses a variant word: luna, sol, terra, astra, mini, pro', () => {
    for (const [q, forbidden] of [
      ['gpt-6.2-luna', /sol|terra|astra/],
      ['gpt-6.2-sol', /luna|terra|astra/],
      ['gpt-5.4-mini-2', /nano|^gpt-5\.4$/],
      ['gpt-6-astra-pro-2', /^gpt-6-astra$/],
    ] as const) {
      const r = lookup.resolve(q, 'codex');
      if (r.id) expect(r.id).not.toMatch(forbidden);
    }
    expect(lookup.resolve('gpt-6.2-luna', 'codex').id).toBe('gpt-6-luna');
  });

  it('unknown names stay unknown, never a $0 price', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^zz[a-z]{1,8}-[a-z]{1,6}$/), harness, (name, h) => {
        const r = lookup.resolve(name, h);
        expect(r).toMatchObject({ how: 'unknown', id: null, price: null });
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * normaliseName runs each pattern only where a character test says it can match (a hook compiles each RegExp it runs):
 * the result must be what the patterns alone give. The patterns-only version is kept here as the oracle.
 */
import { describe, expect, it } from 'vitest';
import { normaliseName } from '../../../src/prices/normalise.js';

function byPatterns(raw: string): { id: string; remarks: string[] } {
  const remarks: string[] = [];
  let s = raw.trim().toLowerCase();
  if (s.endsWith(']')) s = s.replace(/\[\d+[km]\]$/, '');
  const variant = /:([a-z][a-z-]*)$/.exec(s);
  if (variant) {
    s = s.slice(0, variant.index);
    remarks.push(
      variant[1] === 'batch' ? 'batch route: usually billed at 50% of these rates' : `route variant :${variant[1]}`,
    );
  }
  if (s.includes('/')) s = s.slice(s.lastIndexOf('/') + 1);
  const region = /^(us|eu|apac|au|jp|ca|global|us-gov)\./;
  if (region.test(s) && s.includes('anthropic.')) {
    remarks.push('regional Bedrock endpoint: AWS bills 1.1x these rates');
    s = s.replace(region, '');
  }
  s = s.replace(/^anthropic\./, '');
  s = s.replace(/@(\d{8}|latest|default)$/, '');
  s = s.replace(/(?<=\d)-v\d+(:\d+)?$/, '');
  s = s.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '');
  if (s.endsWith('-fast')) {
    s = s.slice(0, -'-fast'.length);
    remarks.push('fast mode: billed at a multiple (2x-6x) of these rates');
  }
  if (s.startsWith('claude-')) {
    s = s.replace(/(\d)\.(?=\d)/g, '$1-');
    s = s.replace(/^claude-(\d+)-(opus|sonnet|haiku|fable|mythos)(?=$|-)/, (m, major: string, fam: string) =>
      Number(major) >= 4 ? `claude-${fam}-${major}` : m,
    );
    s = s.replace(/^claude-(opus|sonnet)-4$/, 'claude-$1-4-0');
  }
  return { id: s, remarks };
}

const parts = [
  'claude-',
  'Claude-',
  'anthropic.',
  'us.',
  'us-gov.',
  'eu.',
  'global.',
  'openrouter/',
  'bedrock/',
  'gpt-',
  'gemini-',
  'opus',
  'sonnet',
  'haiku',
  'mythos',
  '4',
  '3',
  '12',
  '-',
  '.',
  '..',
  '-4',
  '-0',
  '@',
  '@latest',
  '@20250514',
  '-v1',
  '-v2:0',
  ':0',
  ':batch',
  ':free',
  ':x-y',
  ':',
  '-20250514',
  '-2025-05-14',
  '-2025-5-14',
  '20250514',
  '-fast',
  '[1m]',
  '[200k]',
  ' ',
  'x',
  '5.4',
  '4.8',
  '1.2.3',
  '-v',
  'v1',
  '/',
];

describe('normaliseName', () => {
  it('gives what its patterns alone give (they run only where a character test says they can match)', () => {
    let seed = 3;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    let changed = 0;
    for (let i = 0; i < 40000; i++) {
      let s = '';
      for (let k = rand(7); k >= 0; k--) s += parts[rand(parts.length)];
      const want = byPatterns(s);
      expect([s, normaliseName(s)]).toEqual([s, want]);
      if (want.id !== s.trim().toLowerCase()) changed++;
    }
    // The corpus reaches the patterns: most names are changed by one.
    expect(changed).toBeGreaterThan(10000);
    for (const s of [
      'claude-opus-4.8',
      'us.anthropic.claude-sonnet-4-20250514-v1:0',
      'claude-4-opus@20250514',
      'claude-opus-4',
    ])
      expect(normaliseName(s)).toEqual(byPatterns(s));
  });
});

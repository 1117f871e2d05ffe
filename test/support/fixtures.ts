import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../..');

/** A captured payload from test/fixtures/<path>, without the capture's `_meta` note. */
export function fixturePayload(path: string): Record<string, unknown> {
  const { _meta, ...payload } = JSON.parse(readFileSync(join(root, 'test/fixtures', path), 'utf8')) as Record<
    string,
    unknown
  >;
  return payload;
}

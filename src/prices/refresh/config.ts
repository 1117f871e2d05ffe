/** The refresh section of the user's policy. */
import type { Env } from '../../io/paths.js';
import { DEFAULT_REFRESH, type RefreshConfig } from './settings.js';

export function loadRefreshConfig(_env: Env, _cwd: string = process.cwd()): { config: RefreshConfig; diagnostics: string[] } {
  return { config: DEFAULT_REFRESH, diagnostics: [] };
}

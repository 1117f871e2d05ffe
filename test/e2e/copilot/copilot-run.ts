/**
 * Runs the real GitHub Copilot CLI (1.0.102, pinned by scripts/install-harnesses.mjs) headless in BYOK mode in a
 * throwaway HOME against a fake OpenAI chat-completions API on 127.0.0.1 (reference/copilot-cli.md §1): no GitHub
 * login, COPILOT_OFFLINE=true (no authentication, telemetry, web tools or auto-update: the CLI dials only the
 * provider), proxies on a closed loopback port for anything left over. The ~235 MB package the binary unpacks on its
 * first start is shared between runs in .cache/copilot-pkg (COPILOT_PKG_CACHE_HOME).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type HarnessHome, makeHarnessHome, offlineEnv, REPO } from '../support/sandbox.js';

export { REPO };
export const PKG_CACHE = join(REPO, '.cache', 'copilot-pkg');

export type CopilotHome = HarnessHome<'copilotHome'>;

export function makeCopilotHome(tiergateConfig?: unknown): CopilotHome {
  mkdirSync(PKG_CACHE, { recursive: true });
  return makeHarnessHome('tg-copilot-e2e-', '.copilot', 'copilotHome', tiergateConfig);
}

/** A custom agent in the user's agents folder (the one Copilot reads first, seen). */
export function writeAgent(h: CopilotHome, name: string, model: string): void {
  mkdirSync(join(h.copilotHome, 'agents'), { recursive: true });
  writeFileSync(
    join(h.copilotHome, 'agents', `${name}.agent.md`),
    `---\nname: ${name}\ndescription: ${name} agent. Use for the e2e task.\nmodel: ${model}\n---\nYou are ${name}.\n`,
  );
}

/** A personal hooks file (~/.copilot/hooks/<name>.json), e.g. the shipped one with its plugin root replaced. */
export function writeHooks(h: CopilotHome, name: string, hooks: unknown): void {
  mkdirSync(join(h.copilotHome, 'hooks'), { recursive: true });
  writeFileSync(join(h.copilotHome, 'hooks', `${name}.json`), JSON.stringify(hooks, null, 2));
}

export function copilotEnv(
  h: CopilotHome,
  o: { apiUrl: string; model: string },
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    ...offlineEnv(h.tiergateHome, ['PATH', 'LANG', 'TERM', 'TMPDIR']),
    HOME: h.home,
    COPILOT_HOME: h.copilotHome,
    COPILOT_PKG_CACHE_HOME: PKG_CACHE,
    COPILOT_PROVIDER_BASE_URL: o.apiUrl,
    COPILOT_PROVIDER_API_KEY: 'sk-dummy',
    COPILOT_MODEL: o.model,
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    ...extra,
  };
}

/** `copilot -p` non-interactive; `--allow-all-tools` is required there (copilot help). */
export function promptArgs(prompt: string, extra: string[] = []): string[] {
  return ['-p', prompt, '--allow-all-tools', '--output-format', 'json', '--no-auto-update', ...extra];
}

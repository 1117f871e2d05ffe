/**
 * Runs the pinned `claude` binary headless against a fake API on 127.0.0.1, in a throwaway HOME/CLAUDE_CONFIG_DIR
 * (reference/claude-code.md §1). The switches below keep it off the network: telemetry, error reporting, the
 * auto-updater and "nonessential traffic" off.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostEnv, runProcess, tiergateEnv, type ProcessRun } from './sandbox.js';

export type ClaudeSandbox = { root: string; home: string; configDir: string; project: string; tiergateHome: string };

export function makeSandbox(prefix = 'tg-claude-'): ClaudeSandbox {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, 'home');
  const configDir = join(home, '.claude');
  const project = join(root, 'project');
  const tiergateHome = join(root, 'tiergate');
  for (const d of [configDir, project, tiergateHome]) mkdirSync(d, { recursive: true });
  return { root, home, configDir, project, tiergateHome };
}

export function writeUserSettings(sb: ClaudeSandbox, settings: Record<string, unknown>): void {
  writeFileSync(join(sb.configDir, 'settings.json'), JSON.stringify(settings, null, 2));
}

export function claudeEnv(sb: ClaudeSandbox, apiUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...hostEnv(),
    HOME: sb.home,
    CLAUDE_CONFIG_DIR: sb.configDir,
    XDG_CONFIG_HOME: join(sb.home, '.config'),
    XDG_DATA_HOME: join(sb.home, '.local', 'share'),
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: 'sk-ant-dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    // Loopback only: SessionStart would otherwise start the background price refresh (public hosts).
    ...tiergateEnv(sb.tiergateHome),
    ...extra,
  };
}

export type ClaudeResult = ProcessRun;

export function runClaude(bin: string, sb: ClaudeSandbox, apiUrl: string, args: string[], opts: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<ClaudeResult> {
  return runProcess(bin, args, { cwd: sb.project, env: claudeEnv(sb, apiUrl, opts.env), timeoutMs: opts.timeoutMs ?? 90_000 });
}

/**
 * Runs the pinned `claude` binary headless against a fake API on 127.0.0.1, in a throwaway HOME/CLAUDE_CONFIG_DIR
 * (reference/claude-code.md §1). The switches below keep it off the network: telemetry, error reporting, the
 * auto-updater and "nonessential traffic" off.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { hostEnv, REPO, runProcess, tiergateEnv, type ProcessRun } from './sandbox.js';

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

export function runClaude(
  bin: string,
  sb: ClaudeSandbox,
  apiUrl: string,
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ClaudeResult> {
  return runProcess(bin, args, {
    cwd: sb.project,
    env: claudeEnv(sb, apiUrl, opts.env),
    timeoutMs: opts.timeoutMs ?? 90_000,
  });
}

/** Writes a Claude Code agent file (`.claude/agents/*.md` form): frontmatter `name`, `description`, optional `model`. */
export function writeAgentFile(path: string, name: string, model?: string, extra = ''): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    `---\nname: ${name}\ndescription: e2e agent ${name}\n${model !== undefined ? `model: ${model}\n` : ''}${extra}---\nYou are ${name}.\n`,
  );
}

/**
 * A copy of the tiergate plugin as a marketplace install copies it (manifest, hooks.json, data/, all of dist/), with
 * the module optionally patched; `patchModule: () => 'throw …'` gives a module that fails to load, so Claude Code runs
 * the plugin's command hooks alone (seen, 2.1.328).
 */
export function tiergatePluginCopy(root: string, patchModule?: (src: string) => string): string {
  const dir = join(makeSandbox('tg-plugin-').root, 'tiergate');
  mkdirSync(join(dir, 'dist'), { recursive: true });
  cpSync(join(root, '.claude-plugin'), join(dir, '.claude-plugin'), { recursive: true });
  cpSync(join(root, 'hooks.json'), join(dir, 'hooks.json'));
  cpSync(join(root, 'data'), join(dir, 'data'), { recursive: true });
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
  if (patchModule)
    writeFileSync(
      join(dir, 'dist', 'claude-module.js'),
      patchModule(readFileSync(join(dir, 'dist', 'claude-module.js'), 'utf8')),
    );
  return dir;
}

/** A plugin copy whose hooks module fails to load: Claude Code logs it and runs the plugin's command hooks alone (seen, 2.1.328). */
export function commandHooksPlugin(root = REPO): string {
  return tiergatePluginCopy(
    root,
    () => 'throw new Error("tiergate e2e: module off");\nexport function register(on) {}\n',
  );
}

/** The plugin both ways the suites run it: `module` (the hooks module decides) and `command` (its command hooks alone). */
export function pluginPaths(root = REPO): Record<'command' | 'module', string> {
  return { command: commandHooksPlugin(root), module: tiergatePluginCopy(root) };
}

/** `claude -p` as the plugin suites run it: JSON output, only `tools` allowed, an opus parent, tiergate from pluginDir. */
export function pluginPromptArgs(prompt: string, pluginDir: string, tools = 'Agent'): string[] {
  return [
    '-p',
    prompt,
    '--output-format',
    'json',
    '--allowedTools',
    tools,
    '--model',
    'opus',
    '--plugin-dir',
    pluginDir,
  ];
}

/** OpenCode's part of `tiergate demo`: its recorded callbacks through the plugin's createHooks with production deps. */
import type { DemoKit } from '../../contracts/demo.js';
import { createHooks, defaultDeps, type OpencodeClient } from './plugin.js';

export async function demo(kit: DemoKit): Promise<void> {
  const sdk = kit.json('opencode/sdk.child-session.json');
  // Answers as OpenCode 1.18.33's SDK did for the child session (recorded), without a server.
  const client: OpencodeClient = {
    session: { get: async () => ({ data: sdk.session }), messages: async () => ({ data: sdk.messages }) },
  };
  const hooks = createHooks({ client, directory: kit.project }, defaultDeps(kit.env));
  await hooks.config(kit.json('opencode/config.json'));
  await hooks['chat.params'](kit.json('opencode/chat.params.json').input);
  const before = kit.json('opencode/tool.execute.before.json');
  await kit.step('tool.execute.before', async () => {
    const was = before.output.args.subagent_type;
    let denial: string | null = null;
    await hooks['tool.execute.before'](before.input, before.output).catch((err: unknown) => {
      denial = err instanceof Error ? err.message : String(err);
    });
    return kit.effects.inProcess(denial, was, before.output.args.subagent_type);
  });
  const after = kit.json('opencode/tool.execute.after.json');
  await hooks['tool.execute.after'](after.input, after.output);
}

/** pi's part of `tiergate demo`: its recorded tool_call and tool_result through the extension with production deps. */
import { join } from 'node:path';
import type { DemoKit } from '../../contracts/demo.js';
import { defaultPiDeps, registerTiergate } from './extension.js';

/** The recorded runs' agents (data/demo/pi/agents), where pi looks for them in the sandbox. */
const AGENTS = ['pricey', 'cheap', 'tiergate-cheap', 'tiergate-parent'];

export async function demo(kit: DemoKit): Promise<void> {
  for (const name of AGENTS)
    kit.place(`pi/agents/${name}.md`, join(kit.env.PI_CODING_AGENT_DIR!, 'agents', `${name}.md`));
  const handlers = new Map<string, (event: any, ctx: any) => unknown>();
  registerTiergate({ on: (name, h) => void handlers.set(name, h) }, defaultPiDeps(kit.env, ['pi']));
  const call = kit.json('pi/tool_call.json');
  call.ctx.cwd = kit.project;
  await kit.step('tool_call', async () => {
    const was = call.event.input.agent;
    const gate = (await handlers.get('tool_call')!(call.event, call.ctx)) as
      | { block?: boolean; reason?: string }
      | undefined;
    return kit.effects.inProcess(gate?.block ? String(gate.reason) : null, was, call.event.input.agent);
  });
  const result = kit.json('pi/tool_result.json');
  if (result.ctx) result.ctx.cwd = kit.project;
  await handlers.get('tool_result')!(result.event, result.ctx ?? {});
}

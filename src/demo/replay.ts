/**
 * Replays the shipped payloads through the code the real hooks run: `runHook` (the command-hook runner) for Claude
 * Code, Codex and Cursor; the OpenCode plugin's `createHooks` and the pi extension's `registerTiergate` with their
 * default (production) dependencies. Only paths and the project dir are rewritten to the sandbox.
 */
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Harness } from '../contracts/harness.js';
import { runHook } from '../hook-runner/run.js';
import { createHooks, defaultDeps, type OpencodeClient } from '../adapters/opencode/plugin.js';
import { defaultPiDeps, registerTiergate } from '../adapters/pi/extension.js';
import { demoJson } from './assets.js';
import { cursorEffect, hookSpecificEffect, inProcessEffect, type Effect } from './effects.js';
import type { DemoSandbox } from './sandbox.js';
import { newDispatches, spoolLines } from './spool-read.js';

export type DemoDecision = {
  harness: Harness;
  event: string;
  /** Cursor has no binary to record from: its payloads are the documented shapes. */
  documentationOnly: boolean;
  requested: string | null;
  parent: string | null;
  /** Where the adapter read the parent's model (transcript tail, payload, chat.params, ctx.model). */
  parentSource: string | null;
  action: 'allow' | 'correct' | 'deny';
  reason: string;
  tier: string | null;
  effectiveModel: string | null;
  /** The text the model is shown on a deny. */
  modelSees: string | null;
  /** The corrected value (model alias, agent name) on a correct. */
  newValue: string | null;
};

type Payload = Record<string, any>;

const stdin = (payload: unknown) => Readable.from([Buffer.from(JSON.stringify(payload))]);

export class Replay {
  readonly decisions: DemoDecision[] = [];
  constructor(private readonly sb: DemoSandbox) {}

  /** Runs one step; a dispatch step contributes the decision it recorded in the spool. */
  private async step(harness: Harness, event: string, run: () => Promise<Effect | null>, documentationOnly = false): Promise<void> {
    const before = spoolLines(this.sb.env);
    const effect = await run();
    if (!effect) return;
    for (const rec of newDispatches(this.sb.env, before)) {
      const o = rec.observation;
      this.decisions.push({
        harness, event, documentationOnly,
        requested: o.requestedModel ?? (o.requestedAgent ? `${o.requestedAgent}${o.agentModel ? ` (${o.agentModel})` : ''}` : o.requestedTier),
        parent: o.parentModel, parentSource: o.parentModelSource,
        action: rec.decision.action, reason: rec.decision.reason, tier: rec.decision.tier, effectiveModel: rec.decision.effectiveModel,
        ...effect,
      });
    }
  }

  private command(harness: Harness, event: string, payload: Payload, effect: (a: Awaited<ReturnType<typeof runHook>>['answer']) => Effect | null, doc = false) {
    return this.step(harness, event, async () => {
      const out = await runHook(harness, event, stdin({ ...payload, cwd: this.sb.project }), this.sb.env);
      return effect(out.answer);
    }, doc);
  }

  async claude(): Promise<void> {
    const sb = this.sb;
    const over = demoJson('claude/PreToolUse.over-ceiling.json');
    over.transcript_path = sb.stage('claude/parent-sonnet.parent.at-PreToolUse.jsonl', `claude/${over.session_id}.jsonl`);
    await this.command('claude', 'PreToolUse', over, hookSpecificEffect);

    const within = demoJson('claude/PreToolUse.within-ceiling.json');
    within.transcript_path = sb.stage('claude/basic.parent.at-PreToolUse.jsonl', `claude/${within.session_id}.jsonl`);
    await this.command('claude', 'PreToolUse', within, hookSpecificEffect);

    const stop = demoJson('claude/SubagentStop.json');
    stop.transcript_path = within.transcript_path;
    // The child transcript and its `.meta.json` sidecar (which carries the dispatching toolUseId, 2.1.328).
    const child = `claude/${stop.session_id}/subagents/agent-${stop.agent_id}`;
    stop.agent_transcript_path = sb.stage('claude/basic.child.at-SubagentStop.jsonl', `${child}.jsonl`);
    sb.stage('claude/basic.child.agent-meta.json', `${child}.meta.json`);
    await this.command('claude', 'SubagentStop', stop, () => null);
  }

  async codex(): Promise<void> {
    const sb = this.sb;
    const over = demoJson('codex/PreToolUse.over-ceiling.json');
    over.transcript_path = join(sb.root, 'transcripts', 'codex', 'not-written.jsonl');
    await this.command('codex', 'PreToolUse', over, hookSpecificEffect);

    const cheaper = demoJson('codex/PreToolUse.cheaper-child.json');
    cheaper.transcript_path = sb.stage('codex/child-cheaper.parent.final.jsonl', `codex/${cheaper.session_id}.jsonl`);
    await this.command('codex', 'PreToolUse', cheaper, hookSpecificEffect);

    const stop = demoJson('codex/SubagentStop.json');
    stop.transcript_path = cheaper.transcript_path;
    stop.agent_transcript_path = sb.stage('codex/child-cheaper.child.at-SubagentStop.jsonl', `codex/${stop.agent_id}.jsonl`);
    await this.command('codex', 'SubagentStop', stop, () => null);
  }

  async cursor(): Promise<void> {
    await this.command('cursor', 'subagentStart', demoJson('cursor/subagentStart.json'), cursorEffect, true);
    await this.command('cursor', 'subagentStop', demoJson('cursor/subagentStop.json'), () => null, true);
  }

  async opencode(): Promise<void> {
    const sdk = demoJson('opencode/sdk.child-session.json');
    // Answers as OpenCode 1.18.33's SDK did for the child session (recorded), without a server.
    const client: OpencodeClient = { session: { get: async () => ({ data: sdk.session }), messages: async () => ({ data: sdk.messages }) } };
    const hooks = createHooks({ client, directory: this.sb.project }, defaultDeps(this.sb.env));
    await hooks.config(demoJson('opencode/config.json'));
    await hooks['chat.params'](demoJson('opencode/chat.params.json').input);
    const before = demoJson('opencode/tool.execute.before.json');
    await this.step('opencode', 'tool.execute.before', async () => {
      const was = before.output.args.subagent_type;
      let denial: string | null = null;
      await hooks['tool.execute.before'](before.input, before.output).catch((err: unknown) => { denial = err instanceof Error ? err.message : String(err); });
      return inProcessEffect(denial, was, before.output.args.subagent_type);
    });
    const after = demoJson('opencode/tool.execute.after.json');
    await hooks['tool.execute.after'](after.input, after.output);
  }

  async pi(): Promise<void> {
    const handlers = new Map<string, (event: any, ctx: any) => unknown>();
    registerTiergate({ on: (name, h) => void handlers.set(name, h) }, defaultPiDeps(this.sb.env, ['pi']));
    const call = demoJson('pi/tool_call.json');
    call.ctx.cwd = this.sb.project;
    await this.step('pi', 'tool_call', async () => {
      const was = call.event.input.agent;
      const gate = (await handlers.get('tool_call')!(call.event, call.ctx)) as { block?: boolean; reason?: string } | undefined;
      return inProcessEffect(gate?.block ? String(gate.reason) : null, was, call.event.input.agent);
    });
    const result = demoJson('pi/tool_result.json');
    if (result.ctx) result.ctx.cwd = this.sb.project;
    await handlers.get('tool_result')!(result.event, result.ctx ?? {});
  }
}

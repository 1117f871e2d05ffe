/**
 * Replays the shipped payloads through the code the real hooks run: each harness's demo (HarnessModule.demo,
 * src/adapters/<harness>/demo.ts) with a kit whose `command` goes through `runHook` (the command-hook runner) and whose
 * `step` wraps an in-process plugin's callback. Only paths and the project dir are rewritten to the sandbox.
 */
import { Readable } from 'node:stream';
import type { DecisionDetail } from '../contracts/decision-record.js';
import type { DemoEffect, DemoKit } from '../contracts/demo.js';
import type { Harness } from '../contracts/harness.js';
import type { HarnessModule } from '../adapters/index.js';
import { writeFileAtomic } from '../io/files.js';
import { runHook } from '../wiring/command-hooks.js';
import { demoJson, demoText } from './assets.js';
import { hookSpecificEffect, inProcessEffect } from './effects.js';
import type { DemoSandbox } from './sandbox.js';
import { newDispatches, spoolLines } from './spool-read.js';

export type DemoDecision = {
  harness: Harness;
  event: string;
  /** Cursor has no binary to record from: its payloads are the documented shapes. */
  documentationOnly: boolean;
  requested: string | null;
  /**
   * The decision record's model without tiergate and the link of the resolution chain that gave it (call, tier,
   * agent-file, environment, harness-config, parent, unknown) with where it was read: what the child runs on when the
   * call names nothing (Hermes' delegate_task has no model argument; config.yaml delegation.model decides).
   */
  without: string | null;
  withoutFrom: DecisionDetail['withoutFrom'] | null;
  withoutSource: string | null;
  parent: string | null;
  /** Where the adapter read the parent's model (transcript tail, payload, chat.params, ctx.model). */
  parentSource: string | null;
  action: 'allow' | 'correct' | 'deny' | 'ask';
  reason: string;
  tier: string | null;
  effectiveModel: string | null;
  /** The text the model is shown on a deny. */
  modelSees: string | null;
  /** The corrected value (model alias, agent name) on a correct. */
  newValue: string | null;
};

const stdin = (payload: unknown) => Readable.from([Buffer.from(JSON.stringify(payload))]);

export class Replay {
  readonly decisions: DemoDecision[] = [];
  constructor(private readonly sb: DemoSandbox) {}

  /** Runs one harness's demo, if it has one. */
  async harness(m: HarnessModule): Promise<void> {
    if (!m.demo) return;
    await (await m.demo())(this.kit(m));
  }

  /** Runs one step; a dispatch step contributes the decision it recorded in the spool. */
  private async step(m: HarnessModule, event: string, run: () => Promise<DemoEffect | null>): Promise<void> {
    const before = spoolLines(this.sb.env);
    const effect = await run();
    if (!effect) return;
    for (const rec of newDispatches(this.sb.env, before)) {
      const o = rec.observation;
      this.decisions.push({
        harness: m.id,
        event,
        documentationOnly: m.documentationOnly,
        requested:
          o.requestedModel ??
          (o.requestedAgent ? `${o.requestedAgent}${o.agentModel ? ` (${o.agentModel})` : ''}` : o.requestedTier),
        without: rec.decision.detail?.without ?? null,
        withoutFrom: rec.decision.detail?.withoutFrom ?? null,
        withoutSource: rec.decision.detail?.withoutSource ?? null,
        parent: o.parentModel,
        parentSource: o.parentModelSource,
        action: rec.decision.action,
        reason: rec.decision.reason,
        tier: rec.decision.tier,
        effectiveModel: rec.decision.effectiveModel,
        ...effect,
      });
    }
  }

  private kit(m: HarnessModule): DemoKit {
    const sb = this.sb;
    return {
      env: sb.env,
      project: sb.project,
      root: sb.root,
      json: (rel) => demoJson(rel),
      stage: (rel, as) => sb.stage(rel, as),
      place: (rel, to) => writeFileAtomic(to, demoText(rel)),
      command: (event, payload, effect) =>
        this.step(m, event, async () => {
          const out = await runHook(m.id, event, stdin({ ...payload, cwd: sb.project }), sb.env);
          return effect(out.answer);
        }),
      step: (event, run) => this.step(m, event, run),
      effects: { hookSpecific: hookSpecificEffect, inProcess: inProcessEffect },
    };
  }
}

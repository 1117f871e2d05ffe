/**
 * A decision -> what the OpenCode plugin does. 1.18.33 (seen): only an in-place mutation of `output.args.subagent_type`
 * reaches the task tool (replacing `output.args` is ignored), and a thrown Error's message reaches the model verbatim
 * as the tool result (a deny).
 */
import type { Decision } from '../../contracts/decision.js';

export type OpencodeAction =
  | { kind: 'none' }
  | { kind: 'mutated'; field: string; from: unknown; to: string }
  | { kind: 'deny'; message: string };

export function applyDecision(decision: Decision, output: { args: Record<string, unknown> }): OpencodeAction {
  if (decision.action === 'deny') return { kind: 'deny', message: decision.message };
  if (decision.action === 'correct' && decision.field === 'subagent_type') {
    const from = output.args.subagent_type;
    output.args.subagent_type = decision.value;
    return { kind: 'mutated', field: decision.field, from, to: decision.value };
  }
  return { kind: 'none' };
}

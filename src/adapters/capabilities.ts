/**
 * What each harness honours at dispatch, established against the real binaries (reference, seen) except Cursor
 * (documentation only). Adapters and `tiergate explain` read it from here.
 */
import type { Policy } from '../contracts/config.js';
import type { Capability, Harness } from '../contracts/harness.js';
import { CLAUDE_MODEL_ALIASES } from '../contracts/aliases.js';

export function capabilityFor(harness: Harness, policy: Policy): Capability {
  switch (harness) {
    case 'claude':
      // Claude Code 2.1.328: updatedInput (whole input) and the module's next({...e, model}) are honoured; the Agent
      // tool's model enum accepts only the aliases.
      return { canRewrite: true, rewriteField: 'model', rewriteKind: 'model', legalValues: [...CLAUDE_MODEL_ALIASES], canDeny: true };
    case 'codex':
      // Codex 0.169.0 honours updatedInput only with permissionDecision "allow"; off unless the policy opts in.
      return { canRewrite: policy.codexRewrite, rewriteField: policy.codexRewrite ? 'model' : null, rewriteKind: 'model', legalValues: null, canDeny: true };
    case 'cursor':
      // Documentation only: subagentStart can allow or deny, never rewrite.
      return { canRewrite: false, rewriteField: null, rewriteKind: 'model', legalValues: null, canDeny: true };
    case 'opencode':
      // OpenCode 1.18.33: in-place mutation of output.args.subagent_type is honoured; the task tool has no model arg.
      return { canRewrite: true, rewriteField: 'subagent_type', rewriteKind: 'agent', legalValues: null, canDeny: true };
    case 'pi':
      // pi 0.73.1: in-place mutation of event.input.agent is honoured.
      return { canRewrite: true, rewriteField: 'agent', rewriteKind: 'agent', legalValues: null, canDeny: true };
  }
}

/** Gemini CLI, as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). */
import type { HarnessDescriptor } from '../contracts/harness.js';

export const geminiDescriptor: HarnessDescriptor = {
  id: 'gemini',
  name: 'Gemini CLI',
  documentationOnly: false,
  // Gemini CLI 0.61.0: invoke_agent has no model argument; a BeforeTool answer's whole tool_input replaces the call's,
  // and a new agent_name is honoured (seen). So a correction switches the dispatch to one of tiergate's tier agents,
  // shipped with its extension; the adapter narrows the legal values to the ones installed (observe.ts candidates).
  capability: () => ({
    canRewrite: true,
    rewriteField: 'agent_name',
    rewriteKind: 'agent',
    legalValues: null,
    canDeny: true,
  }),
  // The models tiergate's tier agents are written with at install (extension.ts): Gemini CLI's own ids, each priced in
  // the bundled catalog as it goes on the wire (models.ts).
  defaultTiers: { cheap: 'gemini-2.5-flash', standard: 'gemini-2.5-pro', premium: 'gemini-3.1-pro-preview' },
  reportsUsage: true,
  childEndEvent: 'AfterTool[invoke_agent]',
  dispatchEvents: ['BeforeTool'],
};

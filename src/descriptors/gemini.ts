/** Gemini CLI, as the dispatch path and the policy know it (contracts/harness.ts HarnessDescriptor). */
import { defineHarness } from './define.js';

export const geminiHarness = defineHarness({
  name: 'Gemini CLI',
  // Gemini CLI 0.61.0: invoke_agent has no model argument; a BeforeTool answer's whole tool_input replaces the call's,
  // and a new agent_name is honoured (seen). So a correction switches the dispatch to one of tiergate's tier agents,
  // shipped with its extension; the adapter narrows the legal values to the ones installed (observe.ts candidates).
  rewrite: { field: 'agent_name', kind: 'agent' },
  // The models tiergate's tier agents are written with at install (extension.ts): Gemini CLI's own ids, each priced in
  // the bundled catalog as it goes on the wire (models.ts).
  defaultTiers: { cheap: 'gemini-2.5-flash', standard: 'gemini-2.5-pro', premium: 'gemini-3.1-pro-preview' },
  childEndEvent: 'AfterTool[invoke_agent]',
  dispatchEvents: ['BeforeTool'],
});

import * as z from 'zod/mini';
import { CompletionObservationSchema, DispatchObservationSchema } from './observation.js';
import { DecisionDetailSchema } from './decision-record.js';

/**
 * What hooks and in-process plugins hand to the ledger. Dispatch paths only append a line (no SQLite, no waiting);
 * the ledger drains spools at completion, session end and on every CLI run.
 */
export const SpoolRecordSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('dispatch'),
    observation: DispatchObservationSchema,
    /** The decision without its comparison detail (kept small); reason and tier are what reports need. */
    decision: z.object({
      /** `ask`: the harness's permission prompt was raised (Decision.ask); what the person answered is not seen. */
      action: z.enum(['allow', 'correct', 'deny', 'ask']),
      reason: z.string(),
      tier: z.nullable(z.string()),
      effectiveModel: z.nullable(z.string()),
      catalogVersion: z.nullable(z.string()),
      /** The decision record (issue 29). Absent in spool lines written before it: those keep the old estimate. */
      detail: z.optional(DecisionDetailSchema),
    }),
  }),
  z.object({
    type: z.literal('completion'),
    observation: CompletionObservationSchema,
    /** Where to read more later if the transcript was not flushed yet (late-flush reconciliation). */
    transcriptPath: z.nullable(z.string()),
  }),
]);
export type SpoolRecord = z.infer<typeof SpoolRecordSchema>;

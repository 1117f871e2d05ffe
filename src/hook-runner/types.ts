// Moved to src/contracts/hook.ts (shared by the runner and the adapters); kept until every importer is updated.
export * from '../contracts/hook.js';

/** One doctor finding. `error` makes `tiergate doctor` exit 1; `warn` is worth a look; `ok`/`info` are facts. */
export type Check = {
  section: 'harness' | 'config' | 'prices' | 'ledger' | 'enforcement' | 'budget' | 'hook' | 'diagnostics';
  name: string;
  status: 'ok' | 'info' | 'warn' | 'error';
  detail: string;
  data?: Record<string, unknown>;
};

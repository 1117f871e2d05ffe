// Child process for spool-shared.test.ts: appends a dispatch record (argv[2], a JSON file) argv[4] times to the spool
// of TIERGATE_HOME, each under call id `<argv[3]>_<n>`, as that many command hooks would, one line each, pausing a
// millisecond after every fifth (so drainers in other processes claim the file while it is being written).
import { readFileSync } from 'node:fs';
import type { SpoolRecord } from '../../../src/contracts/spool.js';
import { appendSpool } from '../../../src/observer/spool.js';

const [, , recordFile, prefix, count] = process.argv;
const record = JSON.parse(readFileSync(recordFile!, 'utf8')) as SpoolRecord & { observation: { callId: string } };
for (let n = 0; n < Number(count); n++) {
  record.observation.callId = `${prefix}_${n}`;
  appendSpool(record, process.env);
  if (n % 5 === 4) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
}

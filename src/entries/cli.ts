#!/usr/bin/env node
import { main } from '../cli/main.js';
import { endQuietlyOnClosedPipe } from '../cli/pipe.js';
import { policySlowPath } from '../config/policy-load.js';
import { usePolicySlowPath } from '../config/runtime.js';

usePolicySlowPath(() => policySlowPath);

endQuietlyOnClosedPipe(process.stdout);
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

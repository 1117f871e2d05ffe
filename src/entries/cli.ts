#!/usr/bin/env node
import { main } from '../cli/main.js';
import { endQuietlyOnClosedPipe } from '../cli/pipe.js';

endQuietlyOnClosedPipe(process.stdout);
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

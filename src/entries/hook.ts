import { hookMain } from '../hook-runner/run.js';

void hookMain(process.argv.slice(2));

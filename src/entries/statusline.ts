// dist/statusline.cjs, what `tiergate install claude --statusline` puts in Claude Code's statusLine: the command
// alone, without the CLI's command table, started as a hook is (CommonJS, minified: scripts/build.mjs).
import { run } from '../cli/commands/statusline.js';

void run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  () => process.exit(0),
);

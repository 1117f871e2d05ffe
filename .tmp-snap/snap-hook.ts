import * as z from 'zod/mini';
import { startupSnapshot } from 'node:v8';
import { hookMain } from '/work/main/src/hook-runner/run.ts';
import '/work/main/src/adapters/codex/command.ts';
import '/work/main/src/adapters/claude/command.ts';
import { loadBundledCatalog } from '/work/main/src/prices/load.ts';
z.config({ jitless: true });
loadBundledCatalog(process.env, '/work/main/data/prices-snapshot.json');
startupSnapshot.setDeserializeMainFunction(() => void hookMain(process.argv.slice(1)));

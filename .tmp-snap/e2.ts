import * as z from 'zod/mini';
import '../src/hook-runner/run.ts';
import '../src/adapters/codex/command.ts';
z.config({ jitless: true });

// Tail read of a Claude child transcript: 1 MiB vs 1 GiB file. The reader must cost the same whatever the file size
// (target: 1 GiB median <= 1.1 x 1 MiB median). Both files end with the same realistic tail: Claude Code 2.1.328's
// assistant line followed by its ~36 KB prompt_snapshot line (test/fixtures/claude/transcripts).
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, fmt, median, root, src, timeIt } from './lib.mjs';

const { readTailLines } = await src('observer/tail.ts');
const fixture = readFileSync(join(root, 'test/fixtures/claude/transcripts/basic.child.at-SubagentStop.jsonl'));
const dir = benchDir('tail');

function make(path, bytes) {
  const fd = openSync(path, 'w');
  // Filler: the fixture's own lines (real sizes: 0.4 KB to 36 KB), repeated to size.
  const block = Buffer.alloc(8 * 1024 * 1024);
  let off = 0;
  while (off < block.length) off += fixture.copy(block, off, 0, Math.min(fixture.length, block.length - off));
  const cut = block.lastIndexOf(0x0a) + 1;
  let written = 0;
  while (written + cut < bytes - fixture.length)
    written += writeSync(fd, block, 0, Math.min(cut, bytes - fixture.length - written));
  if (written > 0 && block[Math.min(cut, bytes) - 1] !== 0x0a) writeSync(fd, Buffer.from('\n'));
  writeSync(fd, fixture);
  closeSync(fd);
}

const small = join(dir, 'child-1MiB.jsonl');
const large = join(dir, 'child-1GiB.jsonl');
const t0 = performance.now();
make(small, 1 << 20);
make(large, 1 << 30);
console.log(`generated 1 MiB + 1 GiB transcripts in ${((performance.now() - t0) / 1000).toFixed(1)} s under ${dir}`);

const read = (p) => () => {
  const r = readTailLines(p, { maxBytes: 1 << 20, stopWhen: (l) => l.includes('"type":"assistant"') });
  if (!JSON.parse(r.lines[0]).message.usage) throw new Error('assistant line not found');
};
const runs = Number(process.env.BENCH_RUNS ?? 300);
// Interleaved rounds so drift (page cache, CPU frequency) hits both sides alike.
const a = [];
const b = [];
for (let round = 0; round < 5; round++) {
  a.push(...timeIt(read(small), runs / 5));
  b.push(...timeIt(read(large), runs / 5));
}
const ms = median(a);
const ml = median(b);
console.log(`tail read 1 MiB: median ${fmt(ms)}  (${runs} runs)`);
console.log(`tail read 1 GiB: median ${fmt(ml)}  (${runs} runs)`);
console.log(`ratio 1 GiB / 1 MiB = ${(ml / ms).toFixed(3)}  (target <= 1.1) ${ml / ms <= 1.1 ? 'PASS' : 'FAIL'}`);
if (!process.env.TIERGATE_BENCH_DIR) rmSync(dir, { recursive: true, force: true });

/**
 * `tiergate report | head`: once the reader has gone, a write fails with EPIPE, emitted on the stream as an 'error'
 * event; with no listener node prints a stack trace and exits 1. Nobody is left to read the rest, so stop quietly,
 * with the exit code the command had. Any other stream error is one line on stderr, exit 1.
 */
type Stream = { on(event: 'error', listener: (err: NodeJS.ErrnoException) => void): unknown };

export function endQuietlyOnClosedPipe(stream: Stream, exit: (code: number) => void = (c) => process.exit(c)): void {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') return exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    try {
      process.stderr.write(`tiergate: cannot write the output: ${err.message}\n`);
    } catch {
      /* stderr gone too */
    }
    exit(1);
  });
}

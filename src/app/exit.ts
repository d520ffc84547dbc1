/**
 * Ends the process with `code` once everything written to stdout and stderr has reached the
 * operating system. On Linux, writes to a pipe are asynchronous: `process.exit` right after a large
 * write drops what the pipe had not taken yet (a `lookout cue export … | cat` stopped at 64 KiB),
 * while the same output to a file arrived whole.
 */
export function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  let pending = 0;
  const done = (): void => {
    if (--pending === 0) process.exit(code);
  };
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.writableLength === 0 && !stream.writableNeedDrain) continue;
    pending++;
    // A reader that went away (`| head`) fails the write with EPIPE: nothing more can be delivered.
    stream.once("error", () => process.exit(code));
    // Writes are ordered: the callback of an empty write runs once every earlier write is flushed.
    stream.write("", done);
  }
  if (pending === 0) process.exit(code);
}

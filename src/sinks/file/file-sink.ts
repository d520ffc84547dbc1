import { type FileHandle, mkdir, open, rename, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { Clock } from "../../model/clock.js";
import { ndjson } from "../ndjson.js";
import type { Sink } from "../sink.js";

/** How many bytes of the tail are read on open to find the last complete line. */
const TAIL_WINDOW = 64 * 1024;

/**
 * Truncates what follows the last newline of the file (a line a crash cut short) and returns the
 * file's size after that. A file that has no newline at all in its last TAIL_WINDOW bytes is cut
 * to the start of that window's search, which keeps every complete line shorter than the window.
 */
export async function truncateTornTail(fh: FileHandle): Promise<number> {
  const { size } = await fh.stat();
  if (size === 0) return 0;
  let end = size;
  while (end > 0) {
    const from = Math.max(0, end - TAIL_WINDOW);
    const buf = Buffer.alloc(end - from);
    await fh.read(buf, 0, buf.length, from);
    const nl = buf.lastIndexOf(0x0a);
    if (nl >= 0) {
      const keep = from + nl + 1;
      if (keep < size) {
        await fh.truncate(keep);
        await fh.sync();
      }
      return keep;
    }
    end = from;
  }
  await fh.truncate(0);
  await fh.sync();
  return 0;
}

/** The name a full file is renamed to: `<path>.<UTC time>` (and a counter should that exist). */
async function rotatedName(path: string, now: number): Promise<string> {
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  for (let i = 0; ; i++) {
    const name = i === 0 ? `${path}.${stamp}` : `${path}.${stamp}.${i}`;
    try {
      await stat(name);
    } catch {
      return name;
    }
  }
}

/**
 * The `file` sink: appends each batch as NDJSON lines in one write, then fsyncs before the batch
 * counts as delivered. Before a batch would take the file past `rotateBytes` the file is renamed to
 * `<path>.<UTC time>` and a new one started. A crash can leave a partial last line; opening the file
 * truncates it, so readers never see a torn line (the batch it belonged to is written again, since
 * its position was not stored).
 */
export function createFileSink(o: { path: string; rotateBytes: number; clock: Clock }): Sink {
  let fh: FileHandle | undefined;
  let size = 0;
  const openFile = async (): Promise<FileHandle> => {
    if (fh !== undefined) return fh;
    await mkdir(dirname(o.path), { recursive: true });
    const h = await open(o.path, "a+", 0o640);
    try {
      size = await truncateTornTail(h);
    } catch (e) {
      await h.close();
      throw e;
    }
    fh = h;
    return h;
  };
  const closeFile = async (): Promise<void> => {
    const h = fh;
    fh = undefined;
    await h?.close();
  };
  return {
    encode: (batch) => ndjson(batch.records),
    async send(batch) {
      const bytes = batch.encoded ?? ndjson(batch.records);
      try {
        let h = await openFile();
        if (size > 0 && size + bytes.length > o.rotateBytes) {
          await closeFile();
          await rename(o.path, await rotatedName(o.path, o.clock.now()));
          h = await openFile();
        }
        let off = 0;
        while (off < bytes.length) {
          const { bytesWritten } = await h.write(bytes, off, bytes.length - off);
          off += bytesWritten;
        }
        await h.sync();
        size += bytes.length;
        return { kind: "delivered" };
      } catch (e) {
        // A failed write may have left part of the batch: cut back to the last whole batch.
        await fh?.truncate(size).catch(() => {});
        await closeFile().catch(() => {});
        return { kind: "retry", error: `${o.path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` };
      }
    },
    close: closeFile,
  };
}

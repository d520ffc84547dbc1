import { randomBytes } from "node:crypto";
import { open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Replaces a file's content so that a reader (or a restart after kill -9) sees either the old
 * bytes or the new ones, never a mix: the text goes to a temporary file beside it (same mode as
 * the old file), is fsync'd, renamed over the old one, and the directory fsync'd so that the
 * rename itself is durable. On failure the temporary file is removed and the old file untouched.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  let mode = 0o644;
  try {
    mode = (await stat(path)).mode & 0o7777;
  } catch {
    // A new file: the default mode.
  }
  try {
    const f = await open(tmp, "wx", mode);
    try {
      await f.writeFile(text, "utf8");
      await f.sync();
    } finally {
      await f.close();
    }
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  const d = await open(dir, "r");
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}

import { readFile, stat } from "node:fs/promises";
import { describeNetError } from "./format.js";

/** What reading a `ca_file` gave: the bundle's PEM text, or why there is none. */
export type CaFileResult =
  | { readonly ok: true; readonly pem: string }
  | { readonly ok: false; readonly error: string };

/** Reads the `ca_file` PEM bundles of http and tls checks, re-reading one only when it changed. */
export interface CaFileReader {
  read(path: string): Promise<CaFileResult>;
}

interface Entry {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly pem: string;
}

/**
 * Creates a reader that keeps each bundle's text keyed by path and re-reads it when its inode,
 * size or modification time changes, so a rotated bundle is used from the next run on without a
 * reload. The loader has already refused a bundle it could not read; a file that disappears or
 * turns unreadable later makes the run UNKNOWN, with the path and the system's reason.
 */
export function createCaFileReader(): CaFileReader {
  const cache = new Map<string, Entry>();
  return {
    async read(path) {
      try {
        const st = await stat(path);
        const hit = cache.get(path);
        if (hit !== undefined && hit.ino === st.ino && hit.size === st.size && hit.mtimeMs === st.mtimeMs)
          return { ok: true, pem: hit.pem };
        const pem = await readFile(path, "utf8");
        if (!pem.includes("-----BEGIN CERTIFICATE-----"))
          return { ok: false, error: `ca_file ${JSON.stringify(path)} holds no PEM certificate` };
        if (cache.size > 1000) cache.clear();
        cache.set(path, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, pem });
        return { ok: true, pem };
      } catch (err) {
        cache.delete(path);
        const code = (err as { code?: unknown }).code;
        const why = code === "ENOENT" ? "No such file or directory" : describeNetError(err);
        return { ok: false, error: `cannot read ca_file ${JSON.stringify(path)}: ${why}` };
      }
    },
  };
}

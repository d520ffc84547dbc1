import { webcrypto } from "node:crypto";
import { readFile } from "node:fs/promises";
import { loadConfigInWorker } from "../config/index.js";
import { EMPTY_CONFIG } from "../model/config.js";
import type { LoadOutcome } from "./reload.js";

/**
 * Reads the served document and runs it through the one loader, on a worker thread (startup and
 * reloads alike): a reload's evaluation must not stall the API and the scheduler, and the engine's
 * memory for it goes away with the worker (docs/configuration.md, "Reloads"). Without -config
 * Lookout serves the empty configuration (no objects), which is what the API then reports.
 * `signal` stops the load (the promise rejects).
 */
export async function loadConfigFile(
  path: string,
  profile: "" | "demo",
  signal?: AbortSignal,
): Promise<LoadOutcome> {
  if (path === "") return { ok: true, config: EMPTY_CONFIG, digest: "empty" };
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    return {
      ok: false,
      diagnostics: [{ message: `cannot read: ${(e as Error).message}`, file: path, line: 0, column: 0 }],
    };
  }
  const r = await loadConfigInWorker({
    file: path,
    text,
    ...(profile === "" ? {} : { profile }),
    ...(signal === undefined ? {} : { signal }),
  });
  if (!r.ok) return r;
  // WebCrypto hashes off the main thread: a large document's digest does not stall serving either.
  const digest = Buffer.from(await webcrypto.subtle.digest("SHA-256", Buffer.from(text))).toString("hex");
  return { ok: true, config: r.config, digest };
}

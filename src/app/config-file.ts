import { loadConfigInWorker } from "../config/index.js";
import { EMPTY_CONFIG } from "../model/config.js";
import type { LoadOutcome } from "./reload.js";

/**
 * Reads the served document and runs it through the one loader, on a worker thread (startup and
 * reloads alike): a reload's evaluation must not stall the API and the scheduler, and the engine's
 * memory for it goes away with the worker (docs/configuration.md, "Reloads"). The worker reads the
 * file and hashes it too (the digest is sha256 of its text): a large document's bytes never pass
 * through this thread. Without -config Lookout serves the empty configuration (no objects), which
 * is what the API then reports. `signal` stops the load (the promise rejects).
 */
export async function loadConfigFile(
  path: string,
  profile: "" | "demo",
  signal?: AbortSignal,
  listen?: string,
): Promise<LoadOutcome> {
  if (path === "") return { ok: true, config: EMPTY_CONFIG, digest: "empty" };
  return loadConfigInWorker({
    file: path,
    digest: true,
    ...(profile === "" ? {} : { profile }),
    ...(listen === undefined ? {} : { listen }),
    ...(signal === undefined ? {} : { signal }),
  });
}

import { webcrypto } from "node:crypto";
import { readFile } from "node:fs/promises";
import { loadConfig, loadConfigInWorker } from "../config/index.js";
import { EMPTY_CONFIG } from "../model/config.js";
import type { LoadOutcome } from "./reload.js";

/**
 * Where the loader runs: `inline` on the calling thread (startup, before anything is served), or
 * `worker` on a worker thread (reloads, while the API and the scheduler keep running).
 */
export type LoadMode = "inline" | "worker";

/**
 * Reads the served document and runs it through the one loader. Without -config Lookout serves
 * the empty configuration (no objects), which is what the API then reports. `signal` stops a
 * worker load (the promise rejects).
 */
export async function loadConfigFile(
  path: string,
  profile: "" | "demo",
  mode: LoadMode = "inline",
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
  const input = { file: path, text, ...(profile === "" ? {} : { profile }) };
  let r: Awaited<ReturnType<typeof loadConfigInWorker>>;
  switch (mode) {
    case "inline":
      r = loadConfig(input);
      break;
    case "worker":
      r = await loadConfigInWorker(signal === undefined ? input : { ...input, signal });
      break;
    default: {
      const never: never = mode;
      throw new Error(`unknown load mode ${String(never)}`);
    }
  }
  if (!r.ok) return r;
  // WebCrypto hashes off the main thread: a large document's digest does not stall serving either.
  const digest = Buffer.from(await webcrypto.subtle.digest("SHA-256", Buffer.from(text))).toString("hex");
  return { ok: true, config: r.config, digest };
}

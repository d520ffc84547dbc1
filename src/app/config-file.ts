import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { loadConfig } from "../config/index.js";
import { EMPTY_CONFIG } from "../model/config.js";
import type { LoadOutcome } from "./reload.js";

/**
 * Reads the served document and runs it through the one loader. Without -config Lookout serves
 * the empty configuration (no objects), which is what the API then reports.
 */
export async function loadConfigFile(path: string, profile: "" | "demo"): Promise<LoadOutcome> {
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
  const r = loadConfig({ file: path, text, ...(profile === "" ? {} : { profile }) });
  if (!r.ok) return r;
  return { ok: true, config: r.config, digest: createHash("sha256").update(text).digest("hex") };
}

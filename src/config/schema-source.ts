import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The name schema positions carry in diagnostics and `cue`-style error output. */
export const SCHEMA_FILE_NAME = "lookout:schema.cue";

/**
 * Where schema.cue may sit relative to this module: beside it when run from `src/` (tsx), or back in
 * the source tree when run compiled from `dist/src/config/`.
 */
const CANDIDATES = ["./schema.cue", "../../../src/config/schema.cue"] as const;

let cached: { path: string; text: string } | undefined;

/**
 * The text of the schema shipped with Lookout, read once. Throws when schema.cue cannot be found,
 * which is an installation defect rather than a user error.
 */
export function schemaSource(): { readonly path: string; readonly text: string } {
  if (cached !== undefined) return cached;
  const tried: string[] = [];
  for (const candidate of CANDIDATES) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    tried.push(path);
    try {
      cached = { path, text: readFileSync(path, "utf8") };
      return cached;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
  throw new Error(`lookout: schema.cue not found (looked at ${tried.join(", ")})`);
}

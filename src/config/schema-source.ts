import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The name schema positions carry in diagnostics and `cue`-style error output. */
export const SCHEMA_FILE_NAME = "lookout:schema.cue";

/**
 * Where schema.cue may sit relative to this module: beside it when run from `src/` (tsx), or back in
 * the source tree when run compiled from `dist/src/config/`.
 */
const CANDIDATES = ["./schema.cue", "../../../src/config/schema.cue"] as const;

/**
 * Reads schema.cue for a module at `moduleUrl` (this module's `import.meta.url` in production).
 * Throws when it cannot be found, which is an installation defect rather than a user error.
 */
export function readSchemaFor(moduleUrl: string | URL): { readonly path: string; readonly text: string } {
  const tried: string[] = [];
  for (const candidate of CANDIDATES) {
    const path = fileURLToPath(new URL(candidate, moduleUrl));
    tried.push(path);
    try {
      return { path, text: readFileSync(path, "utf8") };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
  throw new Error(`lookout: schema.cue not found (looked at ${tried.join(", ")})`);
}

let cached: { readonly path: string; readonly text: string } | undefined;

/** The text of the schema shipped with Lookout, read once per process. */
export function schemaSource(): { readonly path: string; readonly text: string } {
  cached ??= readSchemaFor(import.meta.url);
  return cached;
}

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const RELEASE = /^v\d+\.\d+\.\d+$/;

/**
 * The running binary's version: the content of a `VERSION` file beside the compiled `main.js`
 * (written by `npm run stamp -- vX.Y.Z` after the build) when it is a release version `vX.Y.Z`,
 * and `dev` for anything else: a missing, empty or malformed stamp never claims to be a release.
 */
export function resolveVersion(versionFile: string): string {
  let text: string;
  try {
    text = readFileSync(versionFile, "utf8").trim();
  } catch {
    return "dev";
  }
  return RELEASE.test(text) ? text : "dev";
}

/** Where the stamp of this build lives: dist/src/VERSION for dist/src/main.js. */
export function defaultVersionFile(): string {
  return fileURLToPath(new URL("../VERSION", import.meta.url));
}

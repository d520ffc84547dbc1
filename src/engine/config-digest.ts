import { createHash } from "node:crypto";
import type { Config } from "../model/config.js";

/**
 * A digest of a typed config: sha256 over its JSON with Maps written as entry lists (in insertion
 * order, which the loader keeps in document order). Used when ApplyConfig carries no digest.
 */
export function configDigest(config: Config): string {
  const json = JSON.stringify(config, (_key, value: unknown) =>
    value instanceof Map ? { $map: [...value.entries()] } : value,
  );
  return `sha256:${createHash("sha256").update(json).digest("hex")}`;
}

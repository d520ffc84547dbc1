/**
 * JSON that survives Maps. The typed Config and the engine's state use ReadonlyMaps; the command
 * queue and snapshots store them as JSON text, so Maps are written as `{"$map": [[k, v], ...]}` and
 * read back as Maps. Plain objects that happen to have a single `$map` key are not expected anywhere
 * in Lookout's data (label and var keys cannot start with `$`).
 */

/** JSON.stringify with Maps encoded. */
export function encodeJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v instanceof Map ? { $map: [...v.entries()] } : v));
}

/** JSON.parse with Maps decoded. */
export function decodeJson<T>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const m = (v as { $map?: unknown }).$map;
      if (Array.isArray(m) && Object.keys(v).length === 1) return new Map(m as [unknown, unknown][]);
    }
    return v;
  }) as T;
}

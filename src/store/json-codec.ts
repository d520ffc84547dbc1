/**
 * JSON that survives Maps. The typed Config and the engine's state use ReadonlyMaps; the command
 * queue and snapshots store them as JSON text, so Maps are written as `{"$map": [[k, v], ...]}` and
 * read back as Maps. Plain objects that happen to have a single `$map` key are not expected anywhere
 * in Lookout's data (label and var keys cannot start with `$`).
 *
 * `encodeSharedJson` also keeps shared objects shared: a Config shares one check object, one flap
 * setting, one label set among thousands of services, and plain JSON would write each of them out
 * once per service (at 100,000 services, 38 MB instead of 13). Objects reached more than once are
 * written once, in a table, and referred to as `{"$ref": n}`:
 * `{"$shared": [...], "$root": value}`. `decodeJson` reads both forms, and gives shared objects back
 * as one object each.
 */

/** JSON.stringify with Maps encoded. */
export function encodeJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v instanceof Map ? { $map: [...v.entries()] } : v));
}

/**
 * Map-aware JSON in which every object or array reached more than once is written once (see the
 * module comment). Values without shared objects are written as encodeJson writes them.
 */
export function encodeSharedJson(value: unknown): string {
  // Count how often each object is reached; list them children first, so that the table refers
  // only backwards.
  const seen = new Map<object, number>();
  const order: object[] = [];
  const visit = (v: unknown): void => {
    if (v === null || typeof v !== "object") return;
    const n = seen.get(v);
    if (n !== undefined) {
      seen.set(v, n + 1);
      return;
    }
    seen.set(v, 1);
    if (v instanceof Map) {
      for (const [k, x] of v) {
        visit(k);
        visit(x);
      }
    } else if (Array.isArray(v)) {
      for (const x of v) visit(x);
    } else {
      for (const k of Object.keys(v)) visit((v as Record<string, unknown>)[k]);
    }
    order.push(v);
  };
  visit(value);
  const ids = new Map<object, number>();
  for (const o of order) if ((seen.get(o) as number) > 1 && !(o instanceof Map)) ids.set(o, ids.size);
  if (ids.size === 0) return encodeJson(value);
  /** Writes `self` itself and refers to every other shared object. */
  const writer =
    (self: unknown) =>
    (_key: string, v: unknown): unknown => {
      if (v instanceof Map) return { $map: [...v.entries()] };
      if (v !== self && v !== null && typeof v === "object") {
        const id = ids.get(v);
        if (id !== undefined) return { $ref: id };
      }
      return v;
    };
  const table: string[] = [];
  for (const o of ids.keys()) table.push(JSON.stringify(o, writer(o)));
  return `{"$shared":[${table.join(",")}],"$root":${JSON.stringify(value, writer(undefined))}}`;
}

/** JSON.parse with Maps decoded; reads what encodeJson and encodeSharedJson write. */
export function decodeJson<T>(text: string): T {
  const data: unknown = JSON.parse(text);
  /** The shared table, when `text` has one; `{"$ref": n}` means something only then. */
  let shared: unknown[] | undefined;
  const revive = (v: unknown): unknown => {
    if (v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) v[i] = revive(v[i]);
      return v;
    }
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1) {
      const m = o.$map;
      if (Array.isArray(m)) return new Map(revive(m) as [unknown, unknown][]);
      const ref = o.$ref;
      if (shared !== undefined && typeof ref === "number") {
        if (!(ref >= 0 && ref < shared.length)) throw new Error(`bad shared reference ${ref}`);
        return shared[ref];
      }
    }
    for (const k of keys) {
      const x = revive(o[k]);
      // A data property even for "__proto__", which plain assignment would treat as the prototype.
      if (k === "__proto__") Object.defineProperty(o, k, { value: x, enumerable: true, writable: true });
      else o[k] = x;
    }
    return o;
  };
  if (data !== null && typeof data === "object" && !Array.isArray(data)) {
    const d = data as { $shared?: unknown; $root?: unknown };
    if (Array.isArray(d.$shared) && "$root" in d && Object.keys(d).length === 2) {
      const table: unknown[] = [];
      shared = table;
      for (const s of d.$shared) table.push(revive(s));
      return revive(d.$root) as T;
    }
  }
  return revive(data) as T;
}

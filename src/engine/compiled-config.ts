import {
  type CheckConfig,
  type Config,
  EMPTY_CONFIG,
  type FlapConfig,
  type Labels,
} from "../model/config.js";

/** Indexes into a small table: the narrowest unsigned typed array that holds them. */
export type IndexArray = Uint8Array | Uint16Array | Uint32Array;

/**
 * The part of a configuration the state engine reads, as tables indexed by object number: objects
 * in config order, each host followed by its services. Per object it holds a few typed-array
 * slots — its name, its host, its check schedule and its label set, each an index into a table of
 * distinct values — instead of a HostConfig or ServiceConfig and a map entry. At 100,000 services
 * the writer thread held ~12 MiB as a reduced Config; this is ~1.5 MiB, and it is plain data:
 * it crosses to the writer's thread by structured clone (typed arrays are copied as bytes) and is
 * logged as compact JSON (`encodeCompiledConfig`).
 *
 * What is kept: names, parents, labels (selectors), and the check schedule — type, max attempts,
 * intervals, flap detection, and for passive checks the freshness threshold and stale status.
 * Probe targets, vars, zones, notification policies, contacts, views, sinks and commands are not.
 * The engine gives the same events for a config as for its compiled form (it compiles every Config
 * it is given); the scenario runner also replays every scenario through the encoded form.
 */
export interface CompiledConfig {
  /** Number of objects (hosts and services). */
  readonly size: number;
  /** Every distinct host and service name, once. */
  readonly names: readonly string[];
  /** Per object: the index of its own name in `names` (a host's name, a service's name). */
  readonly nameOf: IndexArray;
  /** Per object: a service's host; a host's own number. */
  readonly hostOf: Int32Array;
  /** Every distinct check, reduced to what the engine reads (equal flap settings shared). */
  readonly checks: readonly CheckConfig[];
  /** Per object: the index of its check in `checks`. */
  readonly checkOf: IndexArray;
  /** Every distinct label set (an object's own labels, not merged with its host's). */
  readonly labelSets: readonly Labels[];
  /** Per object: the index of its own labels in `labelSets`. */
  readonly labelsOf: IndexArray;
  /** Per object: for a host, the index of its services' layout in `layouts`; 0 for a service. */
  readonly layoutOf: IndexArray;
  /**
   * Service name → position among its host's services (1 for the first), one map per distinct
   * list of service names: hosts with the same services in the same order share one.
   */
  readonly layouts: readonly ReadonlyMap<string, number>[];
  /** Host object numbers by name. */
  readonly hostIndex: ReadonlyMap<string, number>;
  /** The parents of every host that lists any, as object numbers (names that are no host dropped). */
  readonly parents: ReadonlyMap<number, readonly number[]>;
}

/** Whether a value is a compiled config (and not a Config). */
export function isCompiledConfig(c: Config | CompiledConfig): c is CompiledConfig {
  return "hostOf" in c;
}

/** An array for `n` indexes below `max`, in the narrowest unsigned type. */
function indexArray(n: number, max: number): IndexArray {
  if (max <= 0xff) return new Uint8Array(n);
  if (max <= 0xffff) return new Uint16Array(n);
  return new Uint32Array(n);
}

/** A copy of `a` in the narrowest type for its largest value. */
function narrowed(a: ArrayLike<number>, limit: number): IndexArray {
  const out = indexArray(a.length, limit);
  for (let i = 0; i < a.length; i++) out[i] = a[i] as number;
  return out;
}

/** Distinct values by a key, with a cache by identity (the loader shares equal values already). */
function createTable<T extends object>(keyOf: (v: T) => string, lean: (v: T) => T) {
  const byIdentity = new Map<T, number>();
  const byKey = new Map<string, number>();
  const values: T[] = [];
  return {
    values,
    indexOf(v: T): number {
      const hit = byIdentity.get(v);
      if (hit !== undefined) return hit;
      const k = keyOf(v);
      let i = byKey.get(k);
      if (i === undefined) {
        i = values.length;
        values.push(lean(v));
        byKey.set(k, i);
      }
      byIdentity.set(v, i);
      return i;
    },
  };
}

const flapKey = (f: FlapConfig): string =>
  `${f.enabled}|${f.alpha}|${f.highThreshold}|${f.lowThreshold}|${f.notifyOnFlapStop}`;

const checkKey = (c: CheckConfig): string =>
  `${c.type}|${c.checkIntervalMs}|${c.retryIntervalMs}|${c.timeoutMs}|${c.maxAttempts}|${flapKey(c.flap)}` +
  (c.type === "passive" ? `|${c.freshnessThresholdMs}|${c.staleStatus}` : "");

/** Compiles the part of a config the engine reads (see CompiledConfig). */
export function compileConfig(config: Config): CompiledConfig {
  let size = 0;
  for (const h of config.hosts.values()) size += 1 + h.services.size;

  const flaps = new Map<string, FlapConfig>();
  const checks = createTable<CheckConfig>(checkKey, (c) => {
    const fk = flapKey(c.flap);
    let flap = flaps.get(fk);
    if (flap === undefined) {
      flap = { ...c.flap };
      flaps.set(fk, flap);
    }
    const schedule = {
      checkIntervalMs: c.checkIntervalMs,
      retryIntervalMs: c.retryIntervalMs,
      timeoutMs: c.timeoutMs,
      maxAttempts: c.maxAttempts,
      flap,
    };
    // The probe's own fields (address, url, ...) are left out: the engine never reads them.
    return (
      c.type === "passive"
        ? {
            type: c.type,
            freshnessThresholdMs: c.freshnessThresholdMs,
            staleStatus: c.staleStatus,
            ...schedule,
          }
        : { type: c.type, ...schedule }
    ) as CheckConfig;
  });
  const labelSets = createTable<Labels>(
    (l) => JSON.stringify(l),
    (l) => l,
  );
  const names: string[] = [];
  const nameIndex = new Map<string, number>();
  const nameId = (s: string): number => {
    let i = nameIndex.get(s);
    if (i === undefined) {
      i = names.length;
      names.push(s);
      nameIndex.set(s, i);
    }
    return i;
  };
  const layouts: Map<string, number>[] = [];
  const layoutIndex = new Map<string, number>();

  const nameOf = new Uint32Array(size);
  const hostOf = new Int32Array(size);
  const checkOf = new Uint32Array(size);
  const labelsOf = new Uint32Array(size);
  const layoutOf = new Uint32Array(size);
  const hostIndex = new Map<string, number>();
  let i = 0;
  for (const h of config.hosts.values()) {
    const host = i++;
    hostIndex.set(h.name, host);
    nameOf[host] = nameId(h.name);
    hostOf[host] = host;
    checkOf[host] = checks.indexOf(h.check);
    labelsOf[host] = labelSets.indexOf(h.labels);
    let layoutKey = "";
    for (const s of h.services.values()) {
      const j = i++;
      nameOf[j] = nameId(s.name);
      hostOf[j] = host;
      checkOf[j] = checks.indexOf(s.check);
      labelsOf[j] = labelSets.indexOf(s.labels);
      layoutKey += `${s.name.length}:${s.name}`;
    }
    let layout = layoutIndex.get(layoutKey);
    if (layout === undefined) {
      layout = layouts.length;
      const m = new Map<string, number>();
      for (let k = 1; k <= h.services.size; k++) m.set(names[nameOf[host + k] as number] as string, k);
      layouts.push(m);
      layoutIndex.set(layoutKey, layout);
    }
    layoutOf[host] = layout;
  }
  const parents = new Map<number, number[]>();
  for (const h of config.hosts.values()) {
    if (h.parents.length === 0) continue;
    const self = hostIndex.get(h.name) as number;
    // Unknown parent names are the loader's to reject; here they are simply not parents.
    const list: number[] = [];
    for (const p of h.parents) {
      const parent = p === h.name ? undefined : hostIndex.get(p);
      if (parent !== undefined) list.push(parent);
    }
    parents.set(self, list);
  }
  return {
    size,
    names,
    nameOf: narrowed(nameOf, names.length),
    hostOf,
    checks: checks.values,
    checkOf: narrowed(checkOf, checks.values.length),
    labelSets: labelSets.values,
    labelsOf: narrowed(labelsOf, labelSets.values.length),
    layoutOf: narrowed(layoutOf, layouts.length),
    layouts,
    hostIndex,
    parents,
  };
}

/** A compiled config without objects. */
export const EMPTY_COMPILED_CONFIG: CompiledConfig = compileConfig(EMPTY_CONFIG);

/** The object a (host, service) pair names, or undefined when it is not configured. */
export function lookupObject(
  c: CompiledConfig,
  host: string,
  service: string | undefined,
): number | undefined {
  const h = c.hostIndex.get(host);
  if (h === undefined || service === undefined) return h;
  const at = c.layouts[c.layoutOf[h] as number]?.get(service);
  return at === undefined ? undefined : h + at;
}

/** How many services the host at object number `host` has. */
export function serviceCount(c: CompiledConfig, host: number): number {
  return c.layouts[c.layoutOf[host] as number]?.size ?? 0;
}

/** The form of a compiled config in JSON: per-object tables as arrays, lookups left out. */
interface EncodedConfig {
  readonly compiled: 1;
  readonly names: readonly string[];
  readonly nameOf: readonly number[];
  readonly checks: readonly CheckConfig[];
  readonly checkOf: readonly number[];
  readonly labelSets: readonly Labels[];
  readonly labelsOf: readonly number[];
  /** Per host, in config order: the index of its layout. */
  readonly hostLayouts: readonly number[];
  /** Per layout: its service names in order. */
  readonly layouts: readonly (readonly string[])[];
  readonly parents: readonly (readonly [number, readonly number[]])[];
}

/** Whether a text is what encodeCompiledConfig writes. */
export function isEncodedCompiledConfig(text: string): boolean {
  return text.startsWith('{"compiled":1');
}

/**
 * A compiled config as JSON (what the store's writer logs in its configs table). Shared check and
 * flap objects are written once per distinct check, not once per object.
 */
export function encodeCompiledConfig(c: CompiledConfig): string {
  const hostLayouts: number[] = [];
  for (let i = 0; i < c.size; i++) if (c.hostOf[i] === i) hostLayouts.push(c.layoutOf[i] as number);
  const encoded: EncodedConfig = {
    compiled: 1,
    names: c.names,
    nameOf: Array.from(c.nameOf),
    checks: c.checks,
    checkOf: Array.from(c.checkOf),
    labelSets: c.labelSets,
    labelsOf: Array.from(c.labelsOf),
    hostLayouts,
    layouts: c.layouts.map((m) => [...m.keys()]),
    parents: [...c.parents],
  };
  return JSON.stringify(encoded);
}

/** Reads what encodeCompiledConfig wrote; throws when the text is not such a config. */
export function decodeCompiledConfig(text: string): CompiledConfig {
  const e = JSON.parse(text) as EncodedConfig;
  if (e.compiled !== 1) throw new Error("not a compiled config");
  const size = e.nameOf.length;
  if (e.checkOf.length !== size || e.labelsOf.length !== size) {
    throw new Error("compiled config: per-object tables of different lengths");
  }
  const flaps = new Map<string, FlapConfig>();
  // Equal flap settings are one object again (JSON wrote one copy per check).
  const checks = e.checks.map((c) => {
    const k = flapKey(c.flap);
    const flap = flaps.get(k) ?? c.flap;
    flaps.set(k, flap);
    return { ...c, flap } as CheckConfig;
  });
  const layouts = e.layouts.map((names) => new Map(names.map((n, k) => [n, k + 1] as const)));
  const hostOf = new Int32Array(size);
  const layoutOf = indexArray(size, layouts.length);
  const hostIndex = new Map<string, number>();
  let i = 0;
  for (const l of e.hostLayouts) {
    const layout = layouts[l];
    if (layout === undefined || i + layout.size >= size) {
      throw new Error("compiled config: host layouts do not match the objects");
    }
    const host = i;
    hostOf[host] = host;
    layoutOf[host] = l;
    hostIndex.set(e.names[e.nameOf[host] as number] as string, host);
    for (let k = 0; k < layout.size; k++) hostOf[++i] = host;
    i++;
  }
  if (i !== size) throw new Error("compiled config: host layouts do not match the objects");
  return {
    size,
    names: e.names,
    nameOf: narrowed(e.nameOf, e.names.length),
    hostOf,
    checks,
    checkOf: narrowed(e.checkOf, checks.length),
    labelSets: e.labelSets,
    labelsOf: narrowed(e.labelsOf, e.labelSets.length),
    layoutOf,
    layouts,
    hostIndex,
    parents: new Map(e.parents.map(([h, ps]) => [h, [...ps]])),
  };
}

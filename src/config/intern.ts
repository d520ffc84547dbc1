import type { HostConfig, ServiceConfig } from "../model/config.js";
import { freezeMap } from "./decode.js";
import { scalarKey } from "./scalar-key.js";

/**
 * Makes equal parts of a Config one object: a fleet repeats the same check blocks, label sets,
 * vars, zones and service names thousands of times, and a Config that arrives by structured clone
 * (from the loader's worker) has a fresh copy of each — strings included, which the clone never
 * shares. At 100,000 services that is most of the Config's memory.
 *
 * `host` takes ownership of a cloned, not yet frozen host and returns it frozen as the decoder
 * freezes it (objects, arrays, maps), with every equal label set, vars, check (and its flap
 * settings and argument list) and repeated string shared with the hosts interned before it. Values
 * are unchanged: only identity is shared, which an immutable Config cannot tell apart. One interner
 * per load; drop it afterwards (it holds a table of everything it shared).
 */
export interface ConfigInterner {
  host(h: HostConfig): HostConfig;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Creates an interner for one load. */
export function createConfigInterner(): ConfigInterner {
  const strings = new Map<string, string>();
  /** Interned objects and arrays by structural key; children are interned first, so keys name them by id. */
  const shared = new Map<string, object>();
  const ids = new WeakMap<object, number>();
  /**
   * Objects found equal to an interned one, and that one: a batch refers to its shared parts many
   * times (load-worker.ts shares them before they are cloned), and each is keyed only once.
   */
  const twins = new WeakMap<object, object>();
  let nextId = 0;

  const str = (s: string): string => {
    const hit = strings.get(s);
    if (hit !== undefined) return hit;
    strings.set(s, s);
    return s;
  };

  /** The exact key of a child that is already interned. */
  const leafKey = (v: unknown): string =>
    scalarKey(v) ?? (typeof v === "object" && v !== null ? `#${ids.get(v) ?? "?"}` : `?${String(v)}`);

  /** `v` interned: strings by value, plain objects and arrays by structure (frozen). */
  const value = <T>(v: T): T => {
    if (typeof v === "string") return str(v) as T;
    if (v === null || typeof v !== "object") return v;
    if (ids.has(v)) return v;
    const twin = twins.get(v);
    if (twin !== undefined) return twin as T;
    let key: string;
    if (Array.isArray(v)) {
      key = "[";
      for (let i = 0; i < v.length; i++) {
        v[i] = value(v[i]);
        key += `${leafKey(v[i])},`;
      }
    } else if (v instanceof Map) {
      // Not expected inside hosts; frozen as is, never shared.
      for (const x of v.values()) value(x);
      freezeMap(v);
      ids.set(v, nextId++);
      return v;
    } else {
      key = "{";
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        const x = value(o[k]);
        // A data property even for "__proto__", which plain assignment would treat as the prototype.
        if (k === "__proto__") Object.defineProperty(o, k, { value: x });
        else o[k] = x;
        key += `${JSON.stringify(k)}:${leafKey(x)},`;
      }
    }
    const hit = shared.get(key);
    if (hit !== undefined) {
      twins.set(v, hit);
      return hit as T;
    }
    Object.freeze(v);
    shared.set(key, v);
    ids.set(v, nextId++);
    return v;
  };

  return {
    host(h) {
      const host = h as Mutable<HostConfig>;
      const name = host.name;
      host.address = str(host.address);
      host.parents = value(host.parents);
      host.vars = value(host.vars);
      host.check = value(host.check);
      host.notification = str(host.notification);
      host.zone = str(host.zone);
      host.labels = value(host.labels);
      // A fresh map, so that its keys are the interned names too.
      const services = new Map<string, ServiceConfig>();
      for (const s of host.services.values()) {
        // A literal, in the decoder's field order: a cloned object keeps its fields out of line
        // (a property array beside it), ~15 bytes more for each of 100,000 services.
        const svc: ServiceConfig = {
          host: name,
          name: str(s.name),
          vars: value(s.vars),
          check: value(s.check),
          notification: str(s.notification),
          zone: str(s.zone),
          labels: value(s.labels),
        };
        services.set(svc.name, Object.freeze(svc));
      }
      host.services = freezeMap(services);
      return Object.freeze(host);
    },
  };
}

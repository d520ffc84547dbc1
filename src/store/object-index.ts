import type { Config, HostConfig, Labels, ServiceConfig } from "../model/config.js";
import { effectiveLabels, type Selector } from "../model/selector.js";

/** One configured object: a host, or a service of a host, with the labels selectors see. */
export interface ObjectEntry {
  readonly key: string;
  readonly host: HostConfig;
  readonly service: ServiceConfig | undefined;
  /** Effective labels: a service's host labels overlaid by its own. */
  readonly labels: Labels;
}

/**
 * Every configured object in a stable order — by host name, the host before its services, services
 * by name — so pages cut from it stay stable while statuses change. Rebuilt on every reload.
 * Immutable once built; selector matches are cached per selector text.
 */
export interface ObjectIndex {
  readonly config: Config;
  readonly entries: readonly ObjectEntry[];
  /** Position of a key in entries, if configured. */
  position(key: string): number | undefined;
  /** [start, end) of a host and its services in entries; [0, 0) when the host is not configured. */
  hostRange(host: string): readonly [number, number];
  /** Ascending positions of the entries a selector matches (cached). */
  matching(selector: Selector): Uint32Array;
}

const MAX_CACHED_SELECTORS = 64;

/** Builds the index of a config. O(n log n) in the number of objects. */
export function createObjectIndex(config: Config): ObjectIndex {
  const entries: ObjectEntry[] = [];
  const hostNames = [...config.hosts.keys()].sort(compare);
  const hostStart = new Map<string, number>();
  for (const name of hostNames) {
    const host = config.hosts.get(name) as HostConfig;
    hostStart.set(name, entries.length);
    entries.push({ key: name, host, service: undefined, labels: host.labels });
    for (const sname of [...host.services.keys()].sort(compare)) {
      const service = host.services.get(sname) as ServiceConfig;
      entries.push({ key: `${name}!${sname}`, host, service, labels: effectiveLabels(host, service) });
    }
  }
  const positions = new Map<string, number>();
  for (let i = 0; i < entries.length; i++) positions.set((entries[i] as ObjectEntry).key, i);
  const cache = new Map<string, Uint32Array>();

  return {
    config,
    entries,
    position: (key) => positions.get(key),
    hostRange(host) {
      const s = hostStart.get(host);
      if (s === undefined) return [0, 0];
      return [s, s + 1 + (config.hosts.get(host) as HostConfig).services.size];
    },
    matching(selector) {
      const hit = cache.get(selector.source);
      if (hit !== undefined) {
        // Refresh its place in the LRU order.
        cache.delete(selector.source);
        cache.set(selector.source, hit);
        return hit;
      }
      const out: number[] = [];
      for (let i = 0; i < entries.length; i++)
        if (selector.matches((entries[i] as ObjectEntry).labels)) out.push(i);
      const arr = Uint32Array.from(out);
      if (cache.size >= MAX_CACHED_SELECTORS) cache.delete(cache.keys().next().value as string);
      cache.set(selector.source, arr);
      return arr;
    },
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

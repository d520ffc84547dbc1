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
 * by name — so pages cut from it stay stable while statuses change. Rebuilt on every reload and
 * immutable once built. Lean on purpose: two arrays of references into the config (16 bytes per
 * object); entries and merged labels are made when a read asks for them, keys on first use.
 */
export interface ObjectIndex {
  readonly config: Config;
  /** Number of objects. */
  readonly size: number;
  /** The object at a position, 0 <= i < size. */
  entry(i: number): ObjectEntry;
  /** The host at a position (the object itself, or the service's host). */
  hostAt(i: number): HostConfig;
  /** The service at a position; undefined for a host. */
  serviceAt(i: number): ServiceConfig | undefined;
  /**
   * The key at a position. Made on first use and kept: a key that has been looked up once is a flat
   * string with its hash computed, which makes the next projection lookup several times cheaper.
   */
  keyAt(i: number): string;
  /** Position of a key, if configured. */
  position(key: string): number | undefined;
  /** [start, end) of a host and its services; [0, 0) when the host is not configured. */
  hostRange(host: string): readonly [number, number];
  /** The first position whose object sorts after (host, service) — for resuming a page. */
  upperBound(host: string, service: string | undefined): number;
  /** Ascending positions of the objects a selector matches (cached per selector text). */
  matching(selector: Selector): Uint32Array;
}

const MAX_CACHED_SELECTORS = 64;

/**
 * Builds the index of a config. O(n log n) in the number of objects. `heldKey`, when given, finds
 * an equal string to a service's key that is held anyway (the projection's, for an object with a
 * record): `keyAt` keeps that one, so that a key is held once however many parts of the reader look
 * it up, and keeps none while there is none (the key is made again at the next call).
 */
export function createObjectIndex(
  config: Config,
  heldKey?: (key: string) => string | undefined,
): ObjectIndex {
  const hosts: HostConfig[] = [];
  const services: (ServiceConfig | undefined)[] = [];
  const hostStart = new Map<string, number>();
  for (const name of [...config.hosts.keys()].sort(compare)) {
    const host = config.hosts.get(name) as HostConfig;
    hostStart.set(name, hosts.length);
    hosts.push(host);
    services.push(undefined);
    for (const sname of [...host.services.keys()].sort(compare)) {
      hosts.push(host);
      services.push(host.services.get(sname));
    }
  }
  const size = hosts.length;
  const cache = new Map<string, Uint32Array>();
  let keys: (string | undefined)[] | undefined;
  const keyAt = (i: number): string => {
    keys ??= new Array<string | undefined>(size);
    const hit = keys[i];
    if (hit !== undefined) return hit;
    const host = hosts[i] as HostConfig;
    const service = services[i];
    if (service === undefined) {
      keys[i] = host.name;
      return host.name;
    }
    const made = `${host.name}!${service.name}`;
    if (heldKey === undefined) {
      keys[i] = made;
      return made;
    }
    const held = heldKey(made);
    if (held !== undefined) keys[i] = held;
    return held ?? made;
  };
  const labelsAt = (i: number): Labels => effectiveLabels(hosts[i] as HostConfig, services[i]);
  const hostRange = (host: string): readonly [number, number] => {
    const s = hostStart.get(host);
    return s === undefined ? [0, 0] : [s, s + 1 + (hosts[s] as HostConfig).services.size];
  };
  /** Within a host's range, the first position whose service name is > name (services sorted). */
  const afterService = (start: number, end: number, name: string): number => {
    let lo = start + 1;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((services[mid] as ServiceConfig).name <= name) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  return {
    config,
    size,
    entry(i) {
      return { key: keyAt(i), host: hosts[i] as HostConfig, service: services[i], labels: labelsAt(i) };
    },
    hostAt: (i) => hosts[i] as HostConfig,
    serviceAt: (i) => services[i],
    keyAt,
    position(key) {
      const bang = key.indexOf("!");
      const [s, e] = hostRange(bang < 0 ? key : key.slice(0, bang));
      if (s === e) return undefined;
      if (bang < 0) return s;
      const name = key.slice(bang + 1);
      const p = afterService(s, e, name) - 1;
      return p > s && (services[p] as ServiceConfig).name === name ? p : undefined;
    },
    hostRange,
    upperBound(host, service) {
      // Hosts are sorted: find the first host > host, or inside host's range the right service.
      const [s, e] = hostRange(host);
      if (s !== e) return service === undefined ? s + 1 : afterService(s, e, service);
      let lo = 0;
      let hi = size;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((hosts[mid] as HostConfig).name <= host) lo = mid + 1;
        else hi = mid;
      }
      return lo;
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
      for (let i = 0; i < size; i++) if (selector.matches(labelsAt(i))) out.push(i);
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

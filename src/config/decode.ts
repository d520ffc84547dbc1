import type {
  CommandTemplate,
  Config,
  ContactConfig,
  HostConfig,
  NotificationPolicyConfig,
  ServiceConfig,
  SinkConfig,
  ViewConfig,
} from "../model/config.js";
import { decodeCheckField } from "./decode-check.js";
import { decodeContact, decodePolicy } from "./decode-notify.js";
import type { Obj, Reader } from "./decode-reader.js";
import { createReader, isObj } from "./decode-reader.js";
import { decodeSink } from "./decode-sink.js";
import type { ConfigDiagnostic } from "./diagnostic.js";
import type { Locator } from "./locate.js";
import type { Path } from "./path-step.js";
import { step } from "./path-step.js";

/** The decoded config, or what kept the data from decoding. */
export type DecodeResult =
  | { readonly ok: true; readonly config: Config }
  | { readonly ok: false; readonly diagnostics: readonly ConfigDiagnostic[] };

const refuse = (): never => {
  throw new TypeError("Lookout's Config is immutable");
};

/** Map.prototype with the mutators refusing: a frozen map's prototype. */
const FROZEN_MAP_PROTOTYPE: object = Object.freeze(
  Object.create(Map.prototype, {
    set: { value: refuse },
    delete: { value: refuse },
    clear: { value: refuse },
  }),
);

/**
 * A Map whose mutators throw, frozen: the Config's maps are as immutable as its objects. The map
 * changes prototype rather than gaining three own properties, which cost 3 µs per map.
 */
export function freezeMap<K, V>(m: Map<K, V>): ReadonlyMap<K, V> {
  Object.setPrototypeOf(m, FROZEN_MAP_PROTOTYPE);
  return Object.freeze(m);
}

/**
 * Decodes exported, schema-checked document data into the typed Config: durations become
 * milliseconds, absent fields take the reference's defaults, a service's empty zone inherits its
 * host's, and every object and map is frozen. Never throws; references between objects are checked
 * afterwards (semantic.ts). Takes ownership of `data`: its lists and string maps are frozen in place
 * and shared by the Config.
 */
export function decodeConfig(data: unknown, locator: Locator): DecodeResult {
  const r = createReader(locator);
  if (!isObj(data)) {
    r.report(undefined, "the document must be a struct");
    return { ok: false, diagnostics: r.diagnostics };
  }
  if (data.hosts === undefined) r.report(step(undefined, "hosts"), `missing required field "hosts"`);
  const config: Config = Object.freeze({
    hosts: named(r, data, "hosts", decodeHost),
    resources: r.strMap(data.resources, undefined, "resources"),
    commands: named(r, data, "commands", decodeCommand),
    contacts: named<ContactConfig>(r, data, "contacts", decodeContact),
    notifications: named<NotificationPolicyConfig>(r, data, "notifications", decodePolicy),
    views: named(r, data, "views", decodeView),
    sinks: named<SinkConfig>(r, data, "sinks", decodeSink),
  });
  return r.diagnostics.length > 0 ? { ok: false, diagnostics: r.diagnostics } : { ok: true, config };
}

function named<T>(
  r: Reader,
  data: Obj,
  key: string,
  decode: (r: Reader, name: string, o: Obj, path: Path) => T,
): ReadonlyMap<string, T> {
  const m = new Map<string, T>();
  const at = step(undefined, key);
  const entries = r.obj(data[key], undefined, key);
  for (const name in entries) {
    const v = entries[name];
    if (!isObj(v)) {
      r.report(step(at, name), "expected a struct");
      continue;
    }
    m.set(name, decode(r, name, v, step(at, name)));
  }
  return freezeMap(m);
}

function decodeHost(r: Reader, name: string, o: Obj, path: Path): HostConfig {
  const zone = r.str(o.zone, path, "zone", "default");
  const services = new Map<string, ServiceConfig>();
  const svcs = r.obj(o.services, path, "services");
  const at = step(path, "services");
  for (const s in svcs) {
    const v = svcs[s];
    if (!isObj(v)) r.report(step(at, s), "expected a struct");
    else services.set(s, decodeService(r, name, s, zone, v, step(at, s)));
  }
  return Object.freeze({
    name,
    address: r.required(o.address, path, "address"),
    parents: r.strList(o.parents, path, "parents"),
    vars: r.strMap(o.vars, path, "vars"),
    check: decodeCheckField(r, o, path),
    services: freezeMap(services),
    notification: r.str(o.notification, path, "notification"),
    zone,
    labels: r.strMap(o.labels, path, "labels"),
  });
}

function decodeService(
  r: Reader,
  host: string,
  name: string,
  hostZone: string,
  o: Obj,
  path: Path,
): ServiceConfig {
  const zone = r.str(o.zone, path, "zone");
  return Object.freeze({
    host,
    name,
    vars: r.strMap(o.vars, path, "vars"),
    check: decodeCheckField(r, o, path),
    notification: r.str(o.notification, path, "notification"),
    zone: zone === "" ? hostZone : zone,
    labels: r.strMap(o.labels, path, "labels"),
  });
}

function decodeCommand(r: Reader, name: string, o: Obj, path: Path): CommandTemplate {
  return Object.freeze({
    name,
    line: r.required(o.line, path, "line"),
    shell: r.bool(o.shell, path, "shell", false),
  });
}

function decodeView(r: Reader, name: string, o: Obj, path: Path): ViewConfig {
  if (o.selector === undefined) r.report(step(path, "selector"), `missing required field "selector"`);
  return Object.freeze({
    name,
    selector: r.str(o.selector, path, "selector"),
    description: r.str(o.description, path, "description"),
  });
}

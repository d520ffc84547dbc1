import type { Config, Labels } from "../../model/config.js";
import type { ObjectInfo, SinkObjects } from "../records.js";

/** Objects (hosts and services) encoded per turn of the event loop. */
export const OBJECTS_PER_STEP = 2_000;

/** One host as the text holds it: name, zone, labels, and its services' name, zone, labels. */
type HostRow = [string, string, Labels, [string, string, Labels][]];

/**
 * The zones and labels of `config`'s objects as one JSON text, for the sink thread: encoded in steps
 * of at most `perStep` objects with a turn of the event loop between them, so that a reload at tens
 * of thousands of objects never holds the main thread for long (posting a string is a copy, where
 * posting the objects would clone each on the main thread in one go).
 */
export async function encodeSinkObjects(config: Config, perStep = OBJECTS_PER_STEP): Promise<string> {
  const parts: string[] = [];
  let inStep = 0;
  for (const [name, h] of config.hosts) {
    const services: [string, string, Labels][] = [];
    for (const [s, svc] of h.services) services.push([s, svc.zone, svc.labels]);
    const row: HostRow = [name, h.zone, h.labels, services];
    parts.push(JSON.stringify(row));
    inStep += 1 + services.length;
    if (inStep >= perStep) {
      inStep = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return `[${parts.join(",")}]`;
}

/** The SinkObjects of a text made by encodeSinkObjects. */
export function decodeSinkObjects(text: string): SinkObjects {
  const rows = JSON.parse(text) as HostRow[];
  const hosts = new Map<string, ObjectInfo & { services: Map<string, ObjectInfo> }>();
  for (const [name, zone, labels, services] of rows) {
    const byName = new Map<string, ObjectInfo>();
    for (const [s, z, l] of services) byName.set(s, { zone: z, labels: l });
    hosts.set(name, { zone, labels, services: byName });
  }
  return { hosts };
}

import type { ApplyConfigCommand } from "../model/commands.js";
import type { Config } from "../model/config.js";
import type { EngineEvent } from "../model/events.js";
import { objectKey } from "../model/object-ref.js";
import { configDigest } from "./config-digest.js";
import { dropRemovedObjects } from "./downtimes.js";
import type { EngineState } from "./engine-state.js";
import { bindRecord, eventBase, isProblemState, newRecord, type ObjectRecord } from "./object-record.js";
import { rebuildTimers } from "./timers.js";

/**
 * Builds the object index for a config: kept objects keep their records (and so their state), new
 * ones get PENDING records stamped `at`. Returns the new index; `old` is not modified. Parent and
 * host links are resolved here, once, so that results never search.
 */
export function indexConfig(
  config: Config,
  old: ReadonlyMap<string, ObjectRecord>,
  at: number,
): { objects: Map<string, ObjectRecord>; added: ObjectRecord[]; hosts: number; services: number } {
  const objects = new Map<string, ObjectRecord>();
  const added: ObjectRecord[] = [];
  let ord = 0;
  let services = 0;
  for (const host of config.hosts.values()) {
    let hostRec = old.get(host.name);
    if (hostRec === undefined) {
      hostRec = newRecord(host.name, host, undefined, at);
      added.push(hostRec);
    }
    bindRecord(hostRec, ord++, host, undefined);
    objects.set(hostRec.key, hostRec);
    for (const svc of host.services.values()) {
      const key = objectKey({ host: host.name, service: svc.name });
      let rec = old.get(key);
      if (rec === undefined) {
        rec = newRecord(key, host, svc, at);
        added.push(rec);
      }
      bindRecord(rec, ord++, host, svc);
      rec.hostRecord = hostRec;
      hostRec.services?.set(svc.name, rec);
      objects.set(key, rec);
      services++;
    }
  }
  for (const host of config.hosts.values()) {
    if (host.parents.length === 0) continue;
    const rec = objects.get(host.name) as ObjectRecord;
    // Unknown parent names are the loader's to reject; here they are simply not parents.
    rec.parents = host.parents.flatMap((p) => {
      const parent = p === host.name ? undefined : objects.get(p);
      return parent === undefined || parent.service !== undefined ? [] : [parent];
    });
  }
  return { objects, added, hosts: config.hosts.size, services };
}

/**
 * Swaps the running config. Emits ObjectRemoved (after DowntimeDeleted for its downtimes) per
 * removed object, ObjectAdded per new one, FlappingStop where a reload turned flap detection off
 * on a flapping object, then one ConfigApplied.
 */
export function applyConfig(st: EngineState, cmd: ApplyConfigCommand, out: EngineEvent[]): void {
  const at = cmd.at;
  const { objects, added, hosts, services } = indexConfig(cmd.config, st.objects, at);
  const removed = new Set<ObjectRecord>();
  for (const [key, rec] of st.objects) if (!objects.has(key)) removed.add(rec);

  if (removed.size > 0) dropRemovedObjects(st, removed, at, out);
  for (const rec of removed) out.push({ type: "ObjectRemoved", ...eventBase(rec, at) });
  for (const rec of added) out.push({ type: "ObjectAdded", ...eventBase(rec, at) });
  for (const rec of objects.values()) {
    // A changed max_attempts re-scales the counter: hard problems show max/max, soft ones stay
    // below or at the new max (and go hard on their next problem result).
    const max = rec.check.maxAttempts;
    if (rec.stateType === "HARD" && isProblemState(rec.state)) rec.attempt = max;
    else if (rec.attempt > max) rec.attempt = max;
    if (rec.flapping && !rec.check.flap.enabled) {
      rec.flapping = false;
      out.push({
        type: "FlappingStop",
        ...eventBase(rec, at),
        percent: rec.flap * 100,
        lowThreshold: rec.check.flap.lowThreshold,
        reason: "disabled",
        notifyProblem: false,
      });
    }
  }

  st.config = cmd.config;
  st.digest = cmd.digest ?? configDigest(cmd.config);
  st.objects = objects;
  st.hosts = hosts;
  st.services = services;
  rebuildTimers(st);
  out.push({
    type: "ConfigApplied",
    at,
    digest: st.digest,
    hosts,
    services,
    added: added.length,
    removed: removed.size,
  });
}

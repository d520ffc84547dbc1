import type { Config, HostConfig } from "../model/config.js";

/** The kinds of thing a plan reports, in the order it reports them. */
export type PlanKind = "objects" | "checks" | "contacts" | "policies" | "sinks" | "views" | "commands";

/** What changes in one kind: counts, and the names concerned (each list capped). */
export interface PlanSection {
  readonly kind: PlanKind;
  readonly added: number;
  readonly removed: number;
  readonly changed: number;
  readonly addedNames: readonly string[];
  readonly removedNames: readonly string[];
  readonly changedNames: readonly string[];
  /** Whether a list was cut at the cap. */
  readonly truncated: boolean;
}

/** The most names listed per list of a section. */
export const PLAN_MAX_NAMES = 100;

/** A value as comparable text: maps become objects with sorted keys. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    if (x instanceof Map)
      return Object.fromEntries([...x.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return x;
  });
}

function section(
  kind: PlanKind,
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): PlanSection {
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  for (const [k, v] of after) {
    const old = before.get(k);
    if (old === undefined) added.push(k);
    else if (old !== v) changed.push(k);
  }
  for (const k of before.keys()) if (!after.has(k)) removed.push(k);
  const cap = (xs: string[]) => xs.sort().slice(0, PLAN_MAX_NAMES);
  return {
    kind,
    added: added.length,
    removed: removed.length,
    changed: changed.length,
    truncated: Math.max(added.length, removed.length, changed.length) > PLAN_MAX_NAMES,
    addedNames: cap(added),
    removedNames: cap(removed),
    changedNames: cap(changed),
  };
}

function byName<T>(m: ReadonlyMap<string, T>): Map<string, string> {
  return new Map([...m].map(([k, v]) => [k, canonical(v)]));
}

interface ObjectsAndChecks {
  readonly objects: Map<string, string>;
  readonly checks: Map<string, string>;
}

/** Adds one host, and its services, to `into`; returns how many objects that was. */
function addHost(into: ObjectsAndChecks, name: string, h: HostConfig): number {
  const { check, services, ...rest } = h;
  into.objects.set(name, canonical(rest));
  into.checks.set(name, canonical(check));
  for (const [sname, s] of services) {
    const { check: scheck, ...srest } = s;
    into.objects.set(`${name}!${sname}`, canonical(srest));
    into.checks.set(`${name}!${sname}`, canonical(scheck));
  }
  return 1 + services.size;
}

/** Objects (hosts and `host!service`) without their checks, and their checks, by object key. */
function objectsAndChecks(c: Config): ObjectsAndChecks {
  const into: ObjectsAndChecks = { objects: new Map(), checks: new Map() };
  for (const [name, h] of c.hosts) addHost(into, name, h);
  return into;
}

/** objectsAndChecks in steps of about `step` objects, each in a macrotask of its own. */
async function objectsAndChecksInSteps(c: Config, step: number): Promise<ObjectsAndChecks> {
  const into: ObjectsAndChecks = { objects: new Map(), checks: new Map() };
  let done = 0;
  for (const [name, h] of c.hosts) {
    done += addHost(into, name, h);
    if (done >= step) {
      done = 0;
      await nextTurn();
    }
  }
  return into;
}

function sections(before: Config, after: Config, b: ObjectsAndChecks, a: ObjectsAndChecks): PlanSection[] {
  return [
    section("objects", b.objects, a.objects),
    section("checks", b.checks, a.checks),
    section("contacts", byName(before.contacts), byName(after.contacts)),
    section("policies", byName(before.notifications), byName(after.notifications)),
    section("sinks", byName(before.sinks), byName(after.sinks)),
    section("views", byName(before.views), byName(after.views)),
    section("commands", byName(before.commands), byName(after.commands)),
  ];
}

/**
 * What replacing `before` with `after` changes, kind by kind: objects (hosts and services, their
 * address, parents, labels, vars ... — everything but the check), checks (by object), contacts,
 * notification policies, sinks, views and command templates. Pure; the PlanConfig RPC's answer.
 */
export function planConfig(before: Config, after: Config): PlanSection[] {
  return sections(before, after, objectsAndChecks(before), objectsAndChecks(after));
}

/**
 * planConfig for a reload: the objects are compared in steps of at most `step`, each in a
 * macrotask of its own, so that the API and the scheduler keep their turns at 100,000 objects.
 */
export async function planConfigInSteps(before: Config, after: Config, step = 2_000): Promise<PlanSection[]> {
  const b = await objectsAndChecksInSteps(before, step);
  const a = await objectsAndChecksInSteps(after, step);
  // The two sections by object (each compares and sorts every object's key) in turns of their own.
  const objects = section("objects", b.objects, a.objects);
  await nextTurn();
  const checks = section("checks", b.checks, a.checks);
  await nextTurn();
  const [, , ...rest] = sections(before, after, EMPTY_OBJECTS, EMPTY_OBJECTS);
  return [objects, checks, ...rest];
}

const EMPTY_OBJECTS: ObjectsAndChecks = { objects: new Map(), checks: new Map() };

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A plan in one line, as the config history shows it: `+added ~changed -removed objects`, then the
 * changed checks (`~2 checks`: those of added and removed objects are counted with them), then each
 * other kind that changes (`+1 ~0 -0 contacts`). Counts and kinds only: never a name or a value.
 */
export function planSummary(plan: readonly PlanSection[]): string {
  const parts: string[] = [];
  for (const x of plan) {
    if (x.kind === "objects") parts.unshift(`+${x.added} ~${x.changed} -${x.removed} objects`);
    else if (x.kind === "checks") {
      if (x.changed > 0) parts.push(`~${x.changed} checks`);
    } else if (x.added + x.changed + x.removed > 0)
      parts.push(`+${x.added} ~${x.changed} -${x.removed} ${x.kind}`);
  }
  return parts.join(", ");
}

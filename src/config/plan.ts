import type { Config } from "../model/config.js";

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

/** Objects (hosts and `host!service`) without their checks, and their checks, by object key. */
function objectsAndChecks(c: Config): { objects: Map<string, string>; checks: Map<string, string> } {
  const objects = new Map<string, string>();
  const checks = new Map<string, string>();
  for (const [name, h] of c.hosts) {
    const { check, services, ...rest } = h;
    objects.set(name, canonical(rest));
    checks.set(name, canonical(check));
    for (const [sname, s] of services) {
      const { check: scheck, ...srest } = s;
      objects.set(`${name}!${sname}`, canonical(srest));
      checks.set(`${name}!${sname}`, canonical(scheck));
    }
  }
  return { objects, checks };
}

/**
 * What replacing `before` with `after` changes, kind by kind: objects (hosts and services, their
 * address, parents, labels, vars ... — everything but the check), checks (by object), contacts,
 * notification policies, sinks, views and command templates. Pure; the PlanConfig RPC's answer.
 */
export function planConfig(before: Config, after: Config): PlanSection[] {
  const b = objectsAndChecks(before);
  const a = objectsAndChecks(after);
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

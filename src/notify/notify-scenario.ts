import { formatDuration } from "../engine/format-duration.js";
import {
  keyValue,
  objectKeyOf,
  objectWord,
  parseDuration,
  SCENARIO_T0,
  type ScenarioExtension,
} from "../engine/scenario/index.js";
import type { Config } from "../model/config.js";
import { EMPTY_CONFIG } from "../model/config.js";
import type { EngineEvent } from "../model/events.js";
import type { ObjectState } from "../model/state.js";
import { createNotifyZone } from "./period.js";
import { previewNotifications } from "./preview.js";
import { createTracker, type Intent, type TrackedObject, type Tracker } from "./tracker.js";

/**
 * The notifier's tracker as a scenario extension (docs/notifications.md, "Scenario lines"):
 *
 *     notify-timezone Europe/Berlin
 *     expect notify web/http PROBLEM level=1 to=ops,hook
 *     expect no notify web/http            (no send of any kind in the last step)
 *     expect suppressed web/http PROBLEM reason=downtime
 *     expect problem web/http level=2 number=3 due=2h told=ops,hook owed=period
 *     expect no problem web/http
 *     expect preview web/http state=CRITICAL kind=PROBLEM level=1 to=ops suppressed=none next=1h escalates=2h
 *
 * `restart` round-trips the tracker's state through JSON, as the notifier's durable state does.
 */
export function createNotifyScenario(): ScenarioExtension & { readonly all: Intent[] } {
  let zone = createNotifyZone("UTC");
  let tracker: Tracker = createTracker(EMPTY_CONFIG, zone);
  let seq = 0;
  let now = SCENARIO_T0;
  let last: Intent[] = [];
  const all: Intent[] = [];
  const push = (xs: Intent[]) => {
    last.push(...xs);
    all.push(...xs);
  };
  const matching = (args: readonly string[], type: Intent["type"]) => {
    const [obj, kind] = args;
    if (obj === undefined) throw new Error(`expect ${type} needs an object`);
    const key = objectKeyOf(obj);
    return last.filter(
      (i) =>
        i.type === type && i.key === key && (kind === undefined || kind.includes("=") || i.kind === kind),
    );
  };
  const render = () =>
    last
      .map((i) =>
        i.type === "send"
          ? `    send ${objectWord(i.key)} ${i.kind} level=${i.level} to=${i.contact} id=${i.id}`
          : `    suppressed ${objectWord(i.key)} ${i.kind} level=${i.level} reason=${i.reason}`,
      )
      .join("\n") || "    (none)";
  const opts = (args: readonly string[]) => {
    const m = new Map<string, string>();
    for (const w of args) {
      const kv = keyValue(w);
      if (kv !== undefined) m.set(kv[0], kv[1]);
    }
    return m;
  };
  return {
    all,
    begin() {
      last = [];
    },
    config(config: Config) {
      push(tracker.applyConfig(config));
    },
    advance(to) {
      now = to;
      for (let t = tracker.nextDue(); t !== undefined && t <= to; t = tracker.nextDue()) {
        const got = tracker.due(t);
        push(got);
        if (tracker.nextDue() === t) break;
      }
    },
    events(events: readonly EngineEvent[], at: number) {
      now = at;
      for (const event of events) push(tracker.observe({ seq: ++seq, event }));
    },
    statement(verb, args) {
      if (verb === "notify-timezone") {
        zone = createNotifyZone(args[0] ?? "UTC");
        const old = tracker;
        tracker = createTracker(old.config, zone);
        return true;
      }
      if (verb === "restart") {
        const saved: [string, string][] = [];
        const old = tracker;
        const fresh = createTracker(old.config, zone);
        for (const [k, o] of dump(old)) saved.push([k, JSON.stringify(o)]);
        for (const [k, v] of saved) fresh.load(k, JSON.parse(v) as TrackedObject);
        tracker = fresh;
        return true;
      }
      return false;
    },
    expect(what, args, negate) {
      const check = (ok: boolean, msg: string): string | undefined =>
        ok !== negate ? undefined : negate ? `not: ${msg}` : msg;
      switch (what) {
        case "notify": {
          const hits = matching(args, "send");
          const o = opts(args);
          const to = hits
            .map((h) => h.contact)
            .sort()
            .join(",");
          let ok = hits.length > 0;
          const want = o.get("to");
          if (want !== undefined) ok &&= to === want.split(",").sort().join(",");
          const level = o.get("level");
          if (level !== undefined) ok &&= hits.every((h) => String(h.level) === level);
          const id = o.get("id");
          if (id !== undefined) ok &&= hits.some((h) => h.type === "send" && h.id === id);
          return check(
            ok,
            `no notification matches "${args.join(" ")}"; decisions of the last step:\n${render()}`,
          );
        }
        case "suppressed": {
          const hits = matching(args, "suppressed");
          const reason = opts(args).get("reason");
          const ok = hits.some(
            (h) => h.type === "suppressed" && (reason === undefined || h.reason === reason),
          );
          return check(
            ok,
            `no suppression matches "${args.join(" ")}"; decisions of the last step:\n${render()}`,
          );
        }
        case "problem": {
          const key = objectKeyOf(args[0] ?? "");
          const p = tracker.get(key)?.problem;
          if (p === undefined) return check(false, `${args[0]} has no open problem`);
          const got: Record<string, string> = {
            level: String(p.level + 1),
            number: String(p.number),
            due: p.nextDueAt === 0 ? "none" : formatDuration(p.nextDueAt - SCENARIO_T0),
            told: Object.keys(p.told).sort().join(","),
            owed: p.owed === "" ? "none" : p.owed,
          };
          const bad: string[] = [];
          for (const [k, v] of opts(args.slice(1))) {
            const want =
              k === "due" && v !== "none"
                ? formatDuration(parseDuration(v))
                : k === "told"
                  ? v.split(",").sort().join(",")
                  : v;
            if (got[k] !== want) bad.push(`${k}=${got[k]} (want ${want})`);
          }
          return check(bad.length === 0, `${args[0]} problem: ${bad.join(", ")}`);
        }
        case "preview": {
          // `expect preview web/http state=CRITICAL kind=PROBLEM level=1 to=ops suppressed=none next=1h escalates=2h`
          const key = objectKeyOf(args[0] ?? "");
          const o = opts(args.slice(1));
          const state = o.get("state");
          const [p] = previewNotifications(tracker, {
            keys: [key],
            ...(state === undefined ? {} : { state: state as ObjectState }),
            at: now,
          });
          if (p === undefined) return check(false, "no preview");
          const at = (t: number) => (t === 0 ? "none" : formatDuration(t - SCENARIO_T0));
          const got: Record<string, string> = {
            kind: p.kind ?? "none",
            level: String(p.level),
            to: [...p.contacts].sort().join(","),
            suppressed: p.suppressed ?? "none",
            told: p.told.join(","),
            next: at(p.nextNotificationAt),
            escalates: at(p.escalatesAt),
            until: at(p.until ?? 0),
          };
          const bad: string[] = [];
          for (const [k, v] of o) {
            if (k === "state") continue;
            const want =
              (k === "next" || k === "escalates" || k === "until") && v !== "none"
                ? formatDuration(parseDuration(v))
                : k === "to" || k === "told"
                  ? v.split(",").sort().join(",")
                  : v;
            if (got[k] !== want) bad.push(`${k}=${got[k]} (want ${want})`);
          }
          return check(bad.length === 0, `${args[0]} preview: ${bad.join(", ")}`);
        }
        default:
          return null;
      }
    },
  };
}

/** Every tracked object of a tracker, for the `restart` round trip. */
function dump(t: Tracker): [string, TrackedObject][] {
  const out: [string, TrackedObject][] = [];
  for (const key of t.keys()) {
    const o = t.get(key);
    if (o !== undefined) out.push([key, o]);
  }
  return out;
}

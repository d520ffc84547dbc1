import type {
  ContactConfig,
  EscalationLevelConfig,
  NotificationKind,
  NotificationPolicyConfig,
  Weekday,
  WindowConfig,
} from "../model/config.js";
import { NOTIFICATION_KINDS, WEEKDAYS } from "../model/config.js";
import type { Obj, Reader } from "./decode-reader.js";
import { isObj } from "./decode-reader.js";
import type { Path } from "./path-step.js";
import { step } from "./path-step.js";
import { unknownTypeMessage } from "./type-checks.js";

/** Decodes one `#Contact` named `name`. */
export function decodeContact(r: Reader, name: string, o: Obj, path: Path): ContactConfig {
  const labels = r.strMap(o.labels, path, "labels");
  const type = r.str(o.type, path, "type") as ContactConfig["type"];
  switch (type) {
    case "email":
      return Object.freeze({ name, labels, type, address: r.required(o.address, path, "address") });
    case "webhook":
      return Object.freeze({ name, labels, type, url: r.required(o.url, path, "url") });
    case "command":
      return Object.freeze({
        name,
        labels,
        type,
        command: r.required(o.command, path, "command"),
        args: r.strList(o.args, path, "args"),
        address: r.str(o.address, path, "address"),
      });
    case "telegram":
      return Object.freeze({ name, labels, type, chatId: r.required(o.chat_id, path, "chat_id") });
    default: {
      const _never: never = type;
      r.report(
        step(path, "type"),
        unknownTypeMessage("contact", o.type === undefined ? undefined : String(_never), undefined),
      );
      return Object.freeze({ name, labels, type: "email", address: "" });
    }
  }
}

/** Minutes after midnight of an `HH:MM` string the schema's pattern accepted; NaN otherwise. */
export function minuteOfDay(hhmm: string): number {
  const m = /^([0-9]{2}):([0-9]{2})$/.exec(hhmm);
  if (m === null) return Number.NaN;
  return Number(m[1]) * 60 + Number(m[2]);
}

function decodeWindow(r: Reader, o: Obj, path: Path): WindowConfig {
  const weekday = r.required(o.weekday, path, "weekday");
  if (weekday !== "" && !(WEEKDAYS as readonly string[]).includes(weekday)) {
    r.report(step(path, "weekday"), `${JSON.stringify(weekday)} is not a weekday (${WEEKDAYS.join(", ")})`);
  }
  const start = r.required(o.start, path, "start");
  const end = r.required(o.end, path, "end");
  return Object.freeze({
    weekday: weekday as Weekday,
    start,
    end,
    startMinute: minuteOfDay(start),
    endMinute: minuteOfDay(end),
  });
}

function decodeLevel(r: Reader, o: Obj, path: Path): EscalationLevelConfig {
  const contacts = r.strList(o.contacts, path, "contacts");
  if (o.contacts === undefined) r.report(step(path, "contacts"), `missing required field "contacts"`);
  else if (contacts.length === 0)
    r.report(step(path, "contacts"), "an escalation level needs at least one contact");
  const kinds = r.strList(o.disabled_kinds, path, "disabled_kinds");
  kinds.forEach((k, i) => {
    if (!(NOTIFICATION_KINDS as readonly string[]).includes(k)) {
      r.report(
        step(step(path, "disabled_kinds"), i),
        `${JSON.stringify(k)} is not a notification kind (${NOTIFICATION_KINDS.join(", ")})`,
      );
    }
  });
  return Object.freeze({
    contacts,
    threshold: r.int(o.threshold, path, "threshold", 0),
    renotifyIntervalMs: r.durationMs(o.renotify_interval, path, "renotify_interval", "1h"),
    disabledKinds: kinds as readonly NotificationKind[],
  });
}

function objList(r: Reader, o: Obj, key: string, path: Path): readonly Obj[] {
  const v = o[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    r.report(step(path, key), "expected a list");
    return [];
  }
  return v.map((e, i) => {
    if (isObj(e)) return e;
    r.report(step(step(path, key), i), "expected a struct");
    return {};
  });
}

/** Decodes one `#NotificationPolicy` named `name`. */
export function decodePolicy(r: Reader, name: string, o: Obj, path: Path): NotificationPolicyConfig {
  const period = objList(r, o, "period", path).map((w, i) =>
    decodeWindow(r, w, step(step(path, "period"), i)),
  );
  if (o.levels === undefined) r.report(step(path, "levels"), `missing required field "levels"`);
  const levelObjs = objList(r, o, "levels", path);
  if (o.levels !== undefined && levelObjs.length === 0)
    r.report(step(path, "levels"), "a policy needs at least one level");
  const levels = levelObjs.map((l, i) => decodeLevel(r, l, step(step(path, "levels"), i)));
  return Object.freeze({ name, period: Object.freeze(period), levels: Object.freeze(levels) });
}

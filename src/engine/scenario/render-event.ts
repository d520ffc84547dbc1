import type { EngineEvent } from "../../model/events.js";
import { formatDuration } from "../format-duration.js";
import { objectWord } from "./tokens.js";

/**
 * An event as the words a scenario's `expect event` matches against: the type, the object
 * (`web/http`), positional words for states, then `key=value` words. Times are offsets from the
 * scenario's start (`10m`).
 */
export function renderEvent(e: EngineEvent, t0: number): string[] {
  const rel = (t: number): string => (t === t0 ? "0s" : formatDuration(t - t0));
  switch (e.type) {
    case "CheckResultProcessed": {
      const s = e.status;
      return [
        e.type,
        objectWord(e.key),
        s.state,
        s.stateType,
        `${s.attempt}/${s.maxAttempts}`,
        `source=${e.result.source}`,
        `output=${e.result.output}`,
        `reachable=${s.reachable}`,
        `flapping=${s.flapping}`,
        `acknowledged=${s.acknowledgement !== null}`,
        `inDowntime=${s.inDowntime}`,
      ];
    }
    case "StateChange":
      return [
        e.type,
        objectWord(e.key),
        e.to,
        e.stateType,
        `${e.attempt}/${e.maxAttempts}`,
        `from=${e.from}`,
        `fromHard=${e.fromHardState}`,
        `hard=${e.hardChange}`,
        `reachable=${e.reachable}`,
        `output=${e.output}`,
      ];
    case "FlappingStart":
      return [e.type, objectWord(e.key), `percent=${e.percent.toFixed(2)}`];
    case "FlappingStop":
      return [
        e.type,
        objectWord(e.key),
        `percent=${e.percent.toFixed(2)}`,
        `reason=${e.reason}`,
        `notifyProblem=${e.notifyProblem}`,
      ];
    case "AcknowledgementSet":
      return [
        e.type,
        objectWord(e.key),
        e.state,
        `sticky=${e.sticky}`,
        `notify=${e.notify}`,
        `author=${e.author}`,
        `comment=${e.comment}`,
      ];
    case "AcknowledgementRemoved":
      return [e.type, objectWord(e.key), `reason=${e.reason}`];
    case "DowntimeScheduled":
      return [
        e.type,
        objectWord(e.key),
        `id=${e.id}`,
        `start=${rel(e.start)}`,
        `end=${rel(e.end)}`,
        `author=${e.author}`,
        `comment=${e.comment}`,
        `flexible=${e.flexible === true}`,
        ...(e.durationMs === undefined ? [] : [`duration=${formatDuration(e.durationMs)}`]),
      ];
    case "DowntimeStarted":
      return [e.type, objectWord(e.key), `id=${e.id}`, `end=${rel(e.end)}`];
    case "DowntimeEnded":
    case "DowntimeExpired":
      return [e.type, objectWord(e.key), `id=${e.id}`];
    case "CommentAdded":
      return [e.type, objectWord(e.key), `id=${e.id}`, `author=${e.author}`, `comment=${e.comment}`];
    case "CommentDeleted":
      return [e.type, objectWord(e.key), `id=${e.id}`, `reason=${e.reason}`];
    case "DowntimeDeleted":
      return [e.type, objectWord(e.key), `id=${e.id}`, `reason=${e.reason}`, `wasActive=${e.wasActive}`];
    case "CustomNotification":
      return [e.type, objectWord(e.key), `author=${e.author}`, `comment=${e.comment}`, `force=${e.force}`];
    case "ObjectFlagsChanged":
      return [
        e.type,
        objectWord(e.key),
        `active=${onOff(e.flags.activeChecks)}`,
        `passive=${onOff(e.flags.passiveChecks)}`,
        `notifications=${onOff(e.flags.notifications)}`,
        `flap=${onOff(e.flags.flapDetection)}`,
        `author=${e.author}`,
      ];
    case "ObjectAdded":
    case "ObjectRemoved":
      return [e.type, objectWord(e.key)];
    case "CheckRescheduled":
      return [e.type, objectWord(e.key), `runAt=${rel(e.runAt)}`, `force=${e.force}`, `author=${e.author}`];
    case "ConfigApplied":
      return [
        e.type,
        `hosts=${e.hosts}`,
        `services=${e.services}`,
        `added=${e.added}`,
        `removed=${e.removed}`,
      ];
    case "CommandRejected":
      return [e.type, e.command, ...(e.key === undefined ? [] : [objectWord(e.key)]), `reason=${e.reason}`];
    default: {
      const never: never = e;
      throw new Error(`unknown event ${JSON.stringify(never)}`);
    }
  }
}

function onOff(on: boolean): string {
  return on ? "on" : "off";
}

/**
 * Whether rendered words satisfy what an `expect event` line asks: every wanted word is present,
 * where `key~=text` matches a `key=...` word containing text.
 */
export function eventMatches(words: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((w) => {
    const i = w.indexOf("~=");
    if (i <= 0) return words.includes(w);
    const prefix = `${w.slice(0, i)}=`;
    const needle = w.slice(i + 2);
    return words.some((x) => x.startsWith(prefix) && x.slice(prefix.length).includes(needle));
  });
}

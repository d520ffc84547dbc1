import { randomUUID } from "node:crypto";
import type { SubmittedCommand } from "../core/validate.js";
import type { Target } from "../model/commands.js";
import { type ExitStatus, passiveHostStatus } from "../model/state.js";
import {
  isSwitchCommand,
  SWITCH_ARITY,
  type SwitchCommandName,
  switchCommand,
  switchTakesService,
} from "./switch-commands.js";

/** The external commands Lookout understands (Nagios/Icinga names). */
export type ExternalCommandName =
  | "PROCESS_SERVICE_CHECK_RESULT"
  | "PROCESS_HOST_CHECK_RESULT"
  | "ACKNOWLEDGE_SVC_PROBLEM"
  | "ACKNOWLEDGE_HOST_PROBLEM"
  | "REMOVE_SVC_ACKNOWLEDGEMENT"
  | "REMOVE_HOST_ACKNOWLEDGEMENT"
  | "SCHEDULE_SVC_DOWNTIME"
  | "SCHEDULE_HOST_DOWNTIME"
  | "DEL_SVC_DOWNTIME"
  | "DEL_HOST_DOWNTIME"
  | "ADD_SVC_COMMENT"
  | "ADD_HOST_COMMENT"
  | "DEL_SVC_COMMENT"
  | "DEL_HOST_COMMENT"
  | "SEND_CUSTOM_SVC_NOTIFICATION"
  | "SEND_CUSTOM_HOST_NOTIFICATION"
  | SwitchCommandName
  | "SCHEDULE_SVC_CHECK"
  | "SCHEDULE_FORCED_SVC_CHECK"
  | "SCHEDULE_HOST_CHECK"
  | "SCHEDULE_FORCED_HOST_CHECK";

/** A parsed line: the command for Core.submit and what its audit record shows; or why not. */
export type ParsedLine =
  | {
      readonly ok: true;
      readonly name: ExternalCommandName;
      readonly command: SubmittedCommand;
      readonly shown: Record<string, unknown>;
    }
  | { readonly ok: false; readonly name: string; readonly reason: string };

/** The fixed argument count of each command (the last argument of a check result may hold `;`). */
const ARITY: Record<ExternalCommandName, number> = {
  PROCESS_SERVICE_CHECK_RESULT: 4,
  PROCESS_HOST_CHECK_RESULT: 3,
  ACKNOWLEDGE_SVC_PROBLEM: 7,
  ACKNOWLEDGE_HOST_PROBLEM: 6,
  REMOVE_SVC_ACKNOWLEDGEMENT: 2,
  REMOVE_HOST_ACKNOWLEDGEMENT: 1,
  SCHEDULE_SVC_DOWNTIME: 9,
  SCHEDULE_HOST_DOWNTIME: 8,
  DEL_SVC_DOWNTIME: 1,
  DEL_HOST_DOWNTIME: 1,
  ADD_SVC_COMMENT: 5,
  ADD_HOST_COMMENT: 4,
  DEL_SVC_COMMENT: 1,
  DEL_HOST_COMMENT: 1,
  SEND_CUSTOM_SVC_NOTIFICATION: 5,
  SEND_CUSTOM_HOST_NOTIFICATION: 4,
  ...SWITCH_ARITY,
  SCHEDULE_SVC_CHECK: 3,
  SCHEDULE_FORCED_SVC_CHECK: 3,
  SCHEDULE_HOST_CHECK: 2,
  SCHEDULE_FORCED_HOST_CHECK: 2,
};

/** Commands whose last argument is free text that may itself contain `;`. */
const TEXT_LAST: ReadonlySet<string> = new Set(["ADD_SVC_COMMENT", "ADD_HOST_COMMENT"]);

/** The author a command-file line records where the line names none (rescheduled checks). */
export const COMMAND_FILE_AUTHOR = "command-file";

function isName(s: string): s is ExternalCommandName {
  return Object.hasOwn(ARITY, s);
}

class LineError extends Error {
  override readonly name = "LineError";
}

const int = (s: string, what: string): number => {
  if (!/^-?\d+$/.test(s.trim())) throw new LineError(`${what} must be an integer, got ${JSON.stringify(s)}`);
  return Number(s.trim());
};

const nonEmpty = (s: string, what: string): string => {
  if (s === "") throw new LineError(`${what} is empty`);
  return s;
};

/** Nagios writes a plugin's line breaks as the two characters `\n`. */
const unescapeOutput = (s: string): string => s.replace(/\\n/g, "\n").replace(/\\\\/g, "\\");

function exitStatus(s: string): ExitStatus {
  const n = int(s, "return_code");
  if (n < 0 || n > 3) throw new LineError(`return_code must be 0, 1, 2 or 3, got ${n}`);
  return n as ExitStatus;
}

function object(host: string, service?: string): Target {
  nonEmpty(host, "host_name");
  if (service === undefined) return { object: { host } };
  return { object: { host, service: nonEmpty(service, "service_description") } };
}

function targetJson(t: Target): Record<string, unknown> {
  if ("selector" in t) return { Selector: t.selector };
  return {
    Object: { Host: t.object.host, ...(t.object.service === undefined ? {} : { Service: t.object.service }) },
  };
}

/** A name longer than any command's is cut to this many characters where a refusal shows it. */
const MAX_NAME_SHOWN = 64;

const shownName = (name: string): string =>
  name.length > MAX_NAME_SHOWN ? `${name.slice(0, MAX_NAME_SHOWN)}…` : name;

/**
 * The command a line (or the start of one) names, `""` when it names none: what the audit record
 * of a refused line shows as its `rpc`.
 */
export function commandNameOf(line: string): string {
  const m = /^\s*\[\d+\]\s+([A-Z_]+)/.exec(line.slice(0, 256));
  return m === null ? "" : shownName(m[1] as string);
}

/**
 * Parses one line of the external command file, `[<epoch>] COMMAND;arg;...` (docs/auth.md, "The
 * external command file"), into the command the API would submit for it. Pure but for
 * `newDowntimeId` and `newCommentId`, which name a scheduled downtime and an added comment; every
 * time comes from the line itself.
 */
export function parseCommandLine(
  line: string,
  newDowntimeId: () => string,
  newCommentId: () => string = () => `c-${randomUUID()}`,
): ParsedLine {
  const m = /^\s*\[(\d+)\]\s+([A-Z_]+)(?:;(.*))?$/s.exec(line);
  if (m === null) {
    const name = shownName(/([A-Z_]{4,})/.exec(line)?.[1] ?? "");
    return { ok: false, name, reason: "not a command line: want [<epoch seconds>] COMMAND;arg;..." };
  }
  const at = Number(m[1]) * 1000;
  const name = m[2] as string;
  if (!isName(name))
    return { ok: false, name: shownName(name), reason: `unknown command ${shownName(name)}` };
  const arity = ARITY[name];
  const raw = m[3] ?? "";
  const parts = raw === "" ? [] : raw.split(";");
  // The last argument of a check result is plugin output, which may itself contain ';'.
  const args =
    (name.startsWith("PROCESS_") || TEXT_LAST.has(name)) && parts.length > arity
      ? [...parts.slice(0, arity - 1), parts.slice(arity - 1).join(";")]
      : parts;
  if (args.length !== arity) {
    return { ok: false, name, reason: `${name} takes ${arity} arguments, got ${args.length}` };
  }
  const a = (i: number) => args[i] as string;
  try {
    return { ok: true, name, ...build(name, a, at, newDowntimeId, newCommentId) };
  } catch (e) {
    if (e instanceof LineError) return { ok: false, name, reason: e.message };
    throw e;
  }
}

function build(
  name: ExternalCommandName,
  a: (i: number) => string,
  at: number,
  newDowntimeId: () => string,
  newCommentId: () => string,
): { command: SubmittedCommand; shown: Record<string, unknown> } {
  if (isSwitchCommand(name)) {
    return switchCommand(name, switchTakesService(name) ? object(a(0), a(1)) : object(a(0)));
  }
  switch (name) {
    case "PROCESS_SERVICE_CHECK_RESULT":
    case "PROCESS_HOST_CHECK_RESULT": {
      const svc = name === "PROCESS_SERVICE_CHECK_RESULT";
      const host = nonEmpty(a(0), "host_name");
      const service = svc ? nonEmpty(a(1), "service_description") : undefined;
      // A host's return_code is its state (0 UP, 1 DOWN, 2 UNREACHABLE), as Nagios reads it.
      const sent = exitStatus(a(svc ? 2 : 1));
      const status = svc ? sent : (passiveHostStatus(sent) as ExitStatus);
      const output = unescapeOutput(a(svc ? 3 : 2));
      return {
        command: {
          type: "ProcessCheckResult",
          parse: true,
          result: {
            host,
            service,
            exitStatus: status,
            output,
            checkedAt: at,
            durationMs: 0,
            source: "passive",
          },
        },
        shown: {
          Type: "ProcessCheckResult",
          Host: host,
          ...(service === undefined ? {} : { Service: service }),
          ExitStatus: sent,
          CheckedAt: new Date(at).toISOString(),
        },
      };
    }
    case "ACKNOWLEDGE_SVC_PROBLEM":
    case "ACKNOWLEDGE_HOST_PROBLEM": {
      const svc = name === "ACKNOWLEDGE_SVC_PROBLEM";
      const target = svc ? object(a(0), a(1)) : object(a(0));
      const o = svc ? 2 : 1;
      const sticky = int(a(o), "sticky");
      if (sticky < 0 || sticky > 2) throw new LineError(`sticky must be 0, 1 or 2, got ${sticky}`);
      const notify = int(a(o + 1), "notify") !== 0;
      int(a(o + 2), "persistent");
      const author = a(o + 3);
      const comment = a(o + 4);
      return {
        command: { type: "AcknowledgeProblem", target, sticky: sticky === 2, notify, author, comment },
        shown: {
          Type: "AcknowledgeProblem",
          Target: targetJson(target),
          Sticky: sticky === 2,
          Notify: notify,
          Author: author,
          Comment: comment,
        },
      };
    }
    case "REMOVE_SVC_ACKNOWLEDGEMENT":
    case "REMOVE_HOST_ACKNOWLEDGEMENT": {
      const target = name === "REMOVE_SVC_ACKNOWLEDGEMENT" ? object(a(0), a(1)) : object(a(0));
      return {
        command: { type: "RemoveAcknowledgement", target },
        shown: { Type: "RemoveAcknowledgement", Target: targetJson(target) },
      };
    }
    case "SCHEDULE_SVC_DOWNTIME":
    case "SCHEDULE_HOST_DOWNTIME": {
      const svc = name === "SCHEDULE_SVC_DOWNTIME";
      const target = svc ? object(a(0), a(1)) : object(a(0));
      const o = svc ? 2 : 1;
      const start = int(a(o), "start_time") * 1000;
      const end = int(a(o + 1), "end_time") * 1000;
      // fixed=0 is a flexible downtime, as in Nagios: it lasts `duration` seconds from the problem.
      const fixed = int(a(o + 2), "fixed");
      if (fixed !== 0 && fixed !== 1) throw new LineError(`fixed must be 0 or 1, got ${fixed}`);
      int(a(o + 3), "trigger_id");
      const seconds = int(a(o + 4), "duration");
      if (fixed === 0 && seconds <= 0) {
        throw new LineError(`a flexible downtime (fixed=0) needs a positive duration, got ${seconds}`);
      }
      const flexible = fixed === 0 ? { flexible: true, durationMs: seconds * 1000 } : {};
      const author = a(o + 5);
      const comment = a(o + 6);
      const id = newDowntimeId();
      return {
        command: { type: "ScheduleDowntime", id, target, start, end, author, comment, ...flexible },
        shown: {
          Type: "ScheduleDowntime",
          Id: id,
          Target: targetJson(target),
          Start: new Date(start).toISOString(),
          End: new Date(end).toISOString(),
          ...(fixed === 0 ? { Flexible: true, DurationSeconds: seconds } : {}),
          Author: author,
          Comment: comment,
        },
      };
    }
    case "SEND_CUSTOM_SVC_NOTIFICATION":
    case "SEND_CUSTOM_HOST_NOTIFICATION": {
      const svc = name === "SEND_CUSTOM_SVC_NOTIFICATION";
      const target = svc ? object(a(0), a(1)) : object(a(0));
      const o = svc ? 2 : 1;
      // Nagios' options: 1 broadcast, 2 forced, 4 increment; only forced means something here.
      const options = int(a(o), "options");
      if (options < 0 || options > 7) throw new LineError(`options must be 0 to 7, got ${options}`);
      const force = (options & 2) !== 0;
      const author = a(o + 1);
      const comment = a(o + 2);
      return {
        command: { type: "SendCustomNotification", target, author, comment, force },
        shown: {
          Type: "SendCustomNotification",
          Target: targetJson(target),
          Author: author,
          Comment: comment,
          Force: force,
        },
      };
    }
    case "DEL_SVC_DOWNTIME":
    case "DEL_HOST_DOWNTIME": {
      const id = nonEmpty(a(0).trim(), "downtime_id");
      return { command: { type: "DeleteDowntime", id }, shown: { Type: "DeleteDowntime", Id: id } };
    }
    case "ADD_SVC_COMMENT":
    case "ADD_HOST_COMMENT": {
      const svc = name === "ADD_SVC_COMMENT";
      const target = svc ? object(a(0), a(1)) : object(a(0));
      if (!("object" in target)) throw new LineError("a comment is on one object");
      const o = svc ? 2 : 1;
      // `persistent` is accepted and moot: every comment is kept until deleted (docs/states.md).
      int(a(o), "persistent");
      const author = a(o + 1);
      const comment = nonEmpty(a(o + 2), "comment");
      const id = newCommentId();
      return {
        command: { type: "AddComment", id, object: target.object, author, comment },
        shown: { Type: "AddComment", Id: id, Target: targetJson(target), Author: author, Comment: comment },
      };
    }
    case "DEL_SVC_COMMENT":
    case "DEL_HOST_COMMENT": {
      const id = nonEmpty(a(0).trim(), "comment_id");
      return { command: { type: "DeleteComment", id }, shown: { Type: "DeleteComment", Id: id } };
    }
    case "SCHEDULE_SVC_CHECK":
    case "SCHEDULE_FORCED_SVC_CHECK":
    case "SCHEDULE_HOST_CHECK":
    case "SCHEDULE_FORCED_HOST_CHECK": {
      const svc = name === "SCHEDULE_SVC_CHECK" || name === "SCHEDULE_FORCED_SVC_CHECK";
      const force = name.startsWith("SCHEDULE_FORCED_");
      const target = svc ? object(a(0), a(1)) : object(a(0));
      const seconds = int(a(svc ? 2 : 1), "check_time");
      if (seconds < 0 || seconds > 8_640_000_000_000)
        throw new LineError(`check_time ${seconds} is not a valid time`);
      const runAt = seconds * 1000;
      return {
        command: { type: "RescheduleCheck", target, runAt, force, author: COMMAND_FILE_AUTHOR },
        shown: {
          Type: "RescheduleCheck",
          Target: targetJson(target),
          At: new Date(runAt).toISOString(),
          Force: force,
        },
      };
    }
    default: {
      const never: never = name;
      throw new LineError(`unknown command ${String(never)}`);
    }
  }
}

import { execFile } from "node:child_process";
import { constants, lstatSync, openSync } from "node:fs";
import net from "node:net";
import { promisify } from "node:util";
import { type AuditLog, capText } from "../audit/index.js";
import type { Core, CoreView } from "../core/core.js";
import { rescheduleRefusal } from "../core/reschedule-refusal.js";
import type { Clock } from "../model/clock.js";
import type { Logger } from "../model/logger.js";
import { RejectedError } from "../store/errors.js";
import { commandNameOf, parseCommandLine } from "./parse.js";

const run = promisify(execFile);

/** Longer lines are refused, once each, and skipped to their newline. */
const MAX_LINE_BYTES = 64 * 1024;
/** How long to wait before reopening a pipe whose stream ended or failed. */
const REOPEN_MS = 1000;

export interface CommandFileOptions {
  readonly path: string;
  readonly core: Pick<Core, "submit" | "newDowntimeId"> &
    Partial<Pick<Core, "newCommentId">> & {
      /** The config in force, for refusing at once what it already shows cannot apply. */
      readonly view?: Pick<CoreView, "index"> & Partial<Pick<CoreView, "projection">>;
    };
  readonly audit: AuditLog;
  readonly clock: Pick<Clock, "now">;
  readonly logger: Logger;
  /** Told what became of every line read (for `lookout_command_file_lines_total`). */
  readonly count?: (result: LineResult) => void;
}

/**
 * What became of a line: accepted (enqueued); refused as unparsable (not a command Lookout knows,
 * or bad arguments) or too long; refused by the pipeline as invalid, not found, or by the state
 * the projection shows (failed_precondition); or failed (not stored).
 */
export type LineResult =
  | "accepted"
  | "unparsable"
  | "too_long"
  | "invalid"
  | "not_found"
  | "failed_precondition"
  | "failed";

/** The running reader of the external command file. */
export interface CommandFile {
  /** Stops reading (the FIFO stays, as Nagios leaves it). */
  stop(): void;
  /** Resolves once every line read so far has been submitted and audited. */
  idle(): Promise<void>;
}

/** A failure to set up the command file that the operator must fix. */
export class CommandFileError extends Error {
  override readonly name = "CommandFileError";
}

/**
 * Creates the named pipe (`mkfifo -m 0660`; an existing FIFO is reused, anything else refused) and
 * reads it line by line for as long as the server runs. Like Icinga 2 it holds the pipe open for
 * reading and writing without blocking, so a writer closing its end never ends the stream and no
 * thread waits in open(2); should the stream end or fail anyway (the pipe removed and recreated),
 * it is reopened. Every line goes through Core.submit, as the API's commands do, and is audited
 * (source extcmd); a bad line is logged with its reason, audited as rejected, and skipped.
 */
export async function startCommandFile(o: CommandFileOptions): Promise<CommandFile> {
  let st: ReturnType<typeof lstatSync> | undefined;
  try {
    st = lstatSync(o.path);
  } catch {
    st = undefined;
  }
  if (st !== undefined && !st.isFIFO()) {
    throw new CommandFileError(`-command-file ${o.path}: exists and is not a named pipe`);
  }
  if (st === undefined) {
    try {
      await run("mkfifo", ["-m", "0660", o.path]);
    } catch (e) {
      throw new CommandFileError(`-command-file ${o.path}: mkfifo failed: ${(e as Error).message}`);
    }
  }
  let stopped = false;
  let socket: net.Socket | undefined;
  let pending: Promise<void> = Promise.resolve();
  let partial = "";
  let skipping = false;

  const audit = (rpc: string, commandJson: string, reason: string) =>
    o.audit.record({
      at: o.clock.now(),
      source: "extcmd",
      peer: "",
      rpc,
      commandJson,
      outcome: reason === "" ? "accepted" : "rejected",
      reason,
    });
  const handle = (line: string) => {
    if (line.trim() === "") return;
    let parsed = parseCommandLine(
      line,
      () => o.core.newDowntimeId(),
      o.core.newCommentId === undefined ? undefined : () => (o.core.newCommentId as () => string)(),
    );
    if (parsed.ok && parsed.command.type === "RescheduleCheck" && o.core.view !== undefined) {
      const projection = o.core.view.projection;
      const refused = rescheduleRefusal(
        o.core.view.index,
        parsed.command.target,
        parsed.command.force,
        projection === undefined ? undefined : (key) => projection.switchedOff(key, "activeChecks"),
      );
      if (refused !== undefined) parsed = { ok: false, name: parsed.name, reason: refused.message };
    }
    let outcome: Promise<string>;
    let name: string;
    let shown = "{}";
    if (!parsed.ok) {
      o.count?.("unparsable");
      // A reason may quote what the line held: logged capped, as its audit record is.
      o.logger.warn("external command refused", { command: parsed.name, reason: capText(parsed.reason) });
      name = parsed.name;
      outcome = Promise.resolve(parsed.reason);
    } else {
      name = parsed.name;
      shown = JSON.stringify(parsed.shown);
      // Submitted at once, in the order read (Core enqueues in call order).
      outcome = o.core.submit([parsed.command], { source: "command_file" }).then(
        () => {
          o.count?.("accepted");
          return "";
        },
        (e: unknown) => {
          const refused = e instanceof RejectedError;
          o.count?.(refused ? e.reason : "failed");
          if (refused)
            o.logger.warn("external command refused", { command: name, reason: capText(e.message) });
          else o.logger.error("external command failed", { command: name, error: e });
          return refused ? e.message : "internal error";
        },
      );
    }
    // Audited in the order of the lines, whichever outcome is known first.
    pending = pending.then(async () => audit(name, shown, await outcome));
  };
  /** Refuses one over-long line, once, named by the command its start names (if any). */
  const refuseLong = (start: string) => {
    const name = commandNameOf(start);
    const reason = `a line longer than ${MAX_LINE_BYTES} bytes`;
    o.count?.("too_long");
    o.logger.warn("external command refused", { command: name, reason });
    pending = pending.then(() => audit(name, "{}", reason));
  };
  const onData = (chunk: string) => {
    let text = partial + chunk;
    partial = "";
    for (;;) {
      const nl = text.indexOf("\n");
      if (nl < 0) break;
      const line = text.slice(0, nl);
      text = text.slice(nl + 1);
      if (skipping) {
        // The end of a line already refused.
        skipping = false;
        continue;
      }
      // A whole line may arrive over the limit in one piece (or complete one kept under it).
      if (line.length > MAX_LINE_BYTES / 3 && Buffer.byteLength(line) > MAX_LINE_BYTES) {
        refuseLong(line);
        continue;
      }
      handle(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
    // Inside a refused line: what came of it is dropped up to its newline.
    if (skipping) return;
    if (text.length > MAX_LINE_BYTES / 3 && Buffer.byteLength(text) > MAX_LINE_BYTES) {
      refuseLong(text);
      skipping = true;
      return;
    }
    partial = text;
  };
  const open = () => {
    if (stopped) return;
    let fd: number;
    try {
      fd = openSync(o.path, constants.O_RDWR | constants.O_NONBLOCK);
    } catch (e) {
      o.logger.error("cannot open the external command file; retrying", { path: o.path, error: e });
      setTimeout(open, REOPEN_MS).unref();
      return;
    }
    const s = new net.Socket({ fd, readable: true, writable: false });
    socket = s;
    s.setEncoding("utf8");
    s.on("data", onData);
    const reopen = (why: string) => {
      if (socket !== s) return;
      socket = undefined;
      s.destroy();
      if (stopped) return;
      o.logger.warn("the external command file closed; reopening", { path: o.path, why });
      partial = "";
      setTimeout(open, REOPEN_MS).unref();
    };
    s.on("end", () => reopen("end of file"));
    s.on("error", (e) => reopen(e.message));
  };
  open();
  o.logger.info("reading the external command file", { path: o.path });
  return {
    stop() {
      stopped = true;
      socket?.destroy();
      socket = undefined;
    },
    async idle() {
      await pending;
    },
  };
}

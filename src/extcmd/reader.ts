import { execFile } from "node:child_process";
import { constants, lstatSync, openSync } from "node:fs";
import net from "node:net";
import { promisify } from "node:util";
import type { AuditLog } from "../audit/index.js";
import type { Clock } from "../model/clock.js";
import type { Logger } from "../model/logger.js";
import { createLineSubmitter, type LineCore, type LineResult } from "./line-submitter.js";
import { commandNameOf } from "./parse.js";
import { createRefusalLog } from "./refusal-log.js";

const run = promisify(execFile);

/** Longer lines are refused, once each, and skipped to their newline. */
const MAX_LINE_BYTES = 64 * 1024;
/** How long to wait before reopening a pipe whose stream ended or failed. */
const REOPEN_MS = 1000;

export interface CommandFileOptions {
  readonly path: string;
  readonly core: LineCore;
  readonly audit: AuditLog;
  readonly clock: Pick<Clock, "now">;
  readonly logger: Logger;
  /** Told what became of `n` lines read (for `lookout_command_file_lines_total`). */
  readonly count?: (result: LineResult, n: number) => void;
}

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
 * it is reopened. Every line goes through Core.submit, as the API's commands do, in the order
 * read, consecutive check results as one batch (createLineSubmitter), and is audited (source
 * extcmd); a bad line is counted, logged with its reason (rate-limited), audited as rejected, and
 * skipped. While the writer is behind, the pipe is not read (its writers block, as Nagios' do).
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
  let partial = "";
  let skipping = false;
  let flushing = false;
  const refusals = createRefusalLog(o.logger, () => o.clock.now());
  const lines = createLineSubmitter({
    core: o.core,
    audit: o.audit,
    clock: o.clock,
    logger: o.logger,
    refusals,
    ...(o.count === undefined ? {} : { count: o.count }),
    // The writer caught up: read the pipe again.
    ready: () => socket?.resume(),
  });

  /** Refuses one over-long line, once, named by the command its start names (if any). */
  const refuseLong = (start: string) =>
    lines.refuse(commandNameOf(start), `a line longer than ${MAX_LINE_BYTES} bytes`, "too_long");
  const onData = (chunk: string) => {
    let text = partial.length === 0 ? chunk : partial + chunk;
    partial = "";
    let from = 0;
    for (;;) {
      const nl = text.indexOf("\n", from);
      if (nl < 0) break;
      const start = from;
      from = nl + 1;
      if (skipping) {
        // The end of a line already refused.
        skipping = false;
        continue;
      }
      // A whole line may arrive over the limit in one piece (or complete one kept under it).
      if (nl - start > MAX_LINE_BYTES / 3 && Buffer.byteLength(text.slice(start, nl)) > MAX_LINE_BYTES) {
        refuseLong(text.slice(start, nl));
        continue;
      }
      lines.line(text.charCodeAt(nl - 1) === 0x0d ? text.slice(start, nl - 1) : text.slice(start, nl));
    }
    text = from === 0 ? text : text.slice(from);
    // The results of this turn's reads go as one batch (or several of MAX_BATCH).
    if (!flushing) {
      flushing = true;
      setImmediate(() => {
        flushing = false;
        lines.flush();
      });
    }
    // Back-pressure: the writer is behind, so the pipe fills and its writers wait.
    if (lines.full) socket?.pause();
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
      refusals.flush();
    },
    idle: () => lines.idle(),
  };
}

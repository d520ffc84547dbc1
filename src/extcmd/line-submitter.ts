import type { AuditLog } from "../audit/index.js";
import type { Core, CoreView } from "../core/core.js";
import type { PluginResultInput } from "../core/plugin-result.js";
import { rescheduleRefusal } from "../core/reschedule-refusal.js";
import type { SubmittedCommand } from "../core/validate.js";
import { configObjects, validateResult } from "../core/validate.js";
import type { Clock } from "../model/clock.js";
import type { Logger } from "../model/logger.js";
import { RejectedError } from "../store/errors.js";
import type { KnownObjects } from "../store/state-machine.js";
import { type ParsedLine, parseCommandLine } from "./parse.js";
import type { RefusalLog } from "./refusal-log.js";
import { parseResultLine, type ResultLineName } from "./result-line.js";

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

/** At most this many check-result lines go to Core.submit as one batch (the API's batch size). */
export const MAX_BATCH = 1000;
/** A batch is also submitted once its lines hold this many characters (long plugin output). */
export const MAX_BATCH_CHARS = 1024 * 1024;
/**
 * While this many lines, or lines of this many characters, are submitted and not yet durable, the
 * pipe is not read: its writers block on the full pipe, as Nagios' do, and memory stays bounded
 * whatever they send. Reading resumes at half of each.
 */
export const MAX_IN_FLIGHT = 16_000;
export const MAX_IN_FLIGHT_CHARS = 16 * 1024 * 1024;

/** What the submitter needs of Core. */
export type LineCore = Pick<Core, "submit" | "newDowntimeId" | "view"> & Partial<Pick<Core, "newCommentId">>;

export interface LineSubmitterOptions {
  readonly core: LineCore;
  readonly audit: AuditLog;
  readonly clock: Pick<Clock, "now">;
  readonly logger: Logger;
  readonly refusals: RefusalLog;
  /** Told what became of `n` lines (for `lookout_command_file_lines_total`). */
  readonly count?: (result: LineResult, n: number) => void;
  /** Called when the lines in flight fall to half the bounds after reaching one of them. */
  readonly ready: () => void;
}

/** Where the reader hands the lines of the pipe, in the order read. */
export interface LineSubmitter {
  /** One whole line (without its newline). */
  line(line: string): void;
  /** A line refused before it was read whole (longer than the limit), named by its start. */
  refuse(name: string, reason: string, result: LineResult): void;
  /** Submits the check results gathered so far (the end of a turn's reads). */
  flush(): void;
  /** Whether a bound of lines in flight is reached: the reader stops reading until `ready`. */
  readonly full: boolean;
  /** Resolves once every line handed so far has been submitted and audited. */
  idle(): Promise<void>;
}

/** A line waiting in the batch: a check result, or a refusal audited in its place. */
type Entry =
  | {
      readonly kind: "result";
      readonly name: ResultLineName;
      readonly command: PluginResultInput;
      /** The return code the line sent (a host's is its state), for a refusal's record. */
      readonly sent: number;
      /** The line's length. */
      readonly chars: number;
    }
  | { readonly kind: "refused"; readonly name: string; readonly reason: string; readonly result: LineResult };

/**
 * Turns lines into submissions, in the order read. Consecutive check results (and the bad lines
 * among them) are gathered into one batch of up to MAX_BATCH: each result is validated against the
 * config and state in force with the rules of Core.submit — a refused one is counted, logged
 * (rate-limited) and audited on its own — and the rest go to Core.submit as one batch, audited as
 * one record with their count and first objects. Any other command first submits the batch before
 * it, then goes to Core.submit alone (so an acknowledgement after a result applies after it), and
 * is audited on its own as before.
 */
export function createLineSubmitter(o: LineSubmitterOptions): LineSubmitter {
  let pending: Promise<void> = Promise.resolve();
  let batch: Entry[] = [];
  let batchChars = 0;
  let inFlight = 0;
  let inFlightChars = 0;
  let waiting = false;
  const count = (result: LineResult, n = 1) => o.count?.(result, n);

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
  /** Audits after every line before it, whichever outcome is known first. */
  const auditInOrder = (rpc: string, commandJson: string, outcome: Promise<string> | string) => {
    pending = pending.then(async () => audit(rpc, commandJson, await outcome));
  };
  const refused = (name: string, reason: string, result: LineResult) => {
    count(result);
    o.refusals.refused(name, reason);
    auditInOrder(name, "{}", reason);
  };
  const track = (lines: number, chars: number, submitted: Promise<unknown>) => {
    inFlight += lines;
    inFlightChars += chars;
    const settled = () => {
      inFlight -= lines;
      inFlightChars -= chars;
      if (waiting && inFlight <= MAX_IN_FLIGHT / 2 && inFlightChars <= MAX_IN_FLIGHT_CHARS / 2) {
        waiting = false;
        o.ready();
      }
    };
    submitted.then(settled, settled);
  };

  const flush = () => {
    const entries = batch;
    if (entries.length === 0) return;
    batch = [];
    batchChars = 0;
    const objects = knownObjects(o.core.view);
    const commands: PluginResultInput[] = [];
    const names = new Set<ResultLineName>();
    let chars = 0;
    for (const e of entries) {
      if (e.kind === "refused") {
        refused(e.name, e.reason, e.result);
        continue;
      }
      const r = e.command.result;
      try {
        validateResult(objects, r.host, r.service, r.exitStatus, r.checkedAt);
      } catch (err) {
        if (!(err instanceof RejectedError)) throw err;
        // Alone through Core.submit, which refuses it as it did above (in this same turn) and
        // counts it (lookout_commands_total{result="refused"}), as every refused command is.
        submitOne(e.name, e.command, JSON.stringify(shownResult(e)), e.chars);
        continue;
      }
      commands.push(e.command);
      chars += e.chars;
      names.add(e.name);
    }
    if (commands.length === 0) return;
    const n = commands.length;
    // Validated above against what Core.submit validates against, in the same turn: it refuses none.
    const outcome = o.core.submit(commands, { source: "command_file" }).then(
      () => {
        count("accepted", n);
        return "";
      },
      (e: unknown) => {
        const refusal = e instanceof RejectedError;
        count(refusal ? e.reason : "failed", n);
        o.logger.error("a batch of external check results was not enqueued", { lines: n, error: e });
        return refusal ? e.message : "internal error";
      },
    );
    track(n, chars, outcome);
    auditInOrder([...names].join("/"), JSON.stringify(describeBatch(commands)), outcome);
  };

  const add = (e: Entry) => {
    batch.push(e);
    batchChars += e.kind === "result" ? e.chars : e.reason.length;
    if (batch.length >= MAX_BATCH || batchChars >= MAX_BATCH_CHARS) flush();
  };

  const command = (line: string, parsed: ParsedLine) => {
    if (parsed.ok && parsed.command.type === "RescheduleCheck") {
      const view = o.core.view;
      const refusal = rescheduleRefusal(view.index, parsed.command.target, parsed.command.force, (key) =>
        view.projection.switchedOff(key, "activeChecks"),
      );
      if (refusal !== undefined) parsed = { ok: false, name: parsed.name, reason: refusal.message };
    }
    if (!parsed.ok) {
      // Not a command: it changes nothing, so it waits in the batch for its audit record's place.
      add({ kind: "refused", name: parsed.name, reason: parsed.reason, result: "unparsable" });
      return;
    }
    // Every line read before this one is submitted before it.
    flush();
    submitOne(parsed.name, parsed.command, JSON.stringify(parsed.shown), line.length);
  };

  /** One command alone through Core.submit, audited in its place. */
  const submitOne = (name: string, command: SubmittedCommand, shown: string, chars: number) => {
    const outcome = o.core.submit([command], { source: "command_file" }).then(
      () => {
        count("accepted");
        return "";
      },
      (e: unknown) => {
        const refusal = e instanceof RejectedError;
        count(refusal ? e.reason : "failed");
        if (refusal) o.refusals.refused(name, e.message);
        else o.logger.error("external command failed", { command: name, error: e });
        return refusal ? e.message : "internal error";
      },
    );
    track(1, chars, outcome);
    auditInOrder(name, shown, outcome);
  };

  return {
    line(line) {
      if (line.length === 0 || (line.charCodeAt(0) <= 0x20 && line.trim() === "")) return;
      const fast = parseResultLine(line);
      if (fast !== undefined) {
        add({ kind: "result", name: fast.name, command: fast.command, sent: fast.sent, chars: line.length });
        return;
      }
      const parsed = parseCommandLine(
        line,
        () => o.core.newDowntimeId(),
        o.core.newCommentId === undefined ? undefined : () => (o.core.newCommentId as () => string)(),
      );
      if (parsed.ok && parsed.command.type === "ProcessCheckResult") {
        const name = parsed.name as ResultLineName;
        const sent = Number((parsed.shown as { ExitStatus: number }).ExitStatus);
        add({ kind: "result", name, command: parsed.command as PluginResultInput, sent, chars: line.length });
        return;
      }
      command(line, parsed);
    },
    refuse(name, reason, result) {
      add({ kind: "refused", name, reason, result });
    },
    flush,
    get full() {
      if (inFlight < MAX_IN_FLIGHT && inFlightChars < MAX_IN_FLIGHT_CHARS) return false;
      waiting = true;
      return true;
    },
    async idle() {
      flush();
      await pending;
    },
  };
}

/** The objects a check result is validated against: Core.submit's, from the same view. */
function knownObjects(view: CoreView): KnownObjects {
  const projection = view.projection;
  return {
    ...configObjects(view.index.config),
    passiveChecksOff: (host, service) =>
      projection.switchedOff(service === undefined ? host : `${host}!${service}`, "passiveChecks"),
  };
}

/** A refused check result's audit record: the line's object, return code and time. */
function shownResult(e: Extract<Entry, { kind: "result" }>): Record<string, unknown> {
  const r = e.command.result;
  return {
    Type: "ProcessCheckResult",
    Host: r.host,
    ...(r.service === undefined ? {} : { Service: r.service }),
    ExitStatus: e.sent,
    CheckedAt: Number.isFinite(r.checkedAt) ? new Date(r.checkedAt).toISOString() : String(r.checkedAt),
  };
}

/** How many results a batch's record names by their objects (as the API's records do). */
const DESCRIBED = 10;

/** A batch's audit record: its count and first objects, the API's ProcessCheckResults form. */
function describeBatch(commands: readonly PluginResultInput[]): Record<string, unknown> {
  const objects: Record<string, string>[] = [];
  for (let i = 0; i < commands.length && i < DESCRIBED; i++) {
    const r = (commands[i] as PluginResultInput).result;
    objects.push(r.service === undefined ? { Host: r.host } : { Host: r.host, Service: r.service });
  }
  return { Type: "ProcessCheckResults", Count: commands.length, Objects: objects };
}

import { type Duration, type Timestamp, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { API_TOKEN_PRINCIPAL } from "../auth/index.js";
import type { Core, CoreView } from "../core/core.js";
import type { SubmittedCommand } from "../core/validate.js";
import type { Target } from "../model/commands.js";
import type { Logger } from "../model/logger.js";
import { type ApiAudit, NO_AUDIT, resultsCommand } from "./api-audit.js";
import { type Caller, callerKey } from "./caller.js";
import type { CommandService } from "./gen/svc/v1/command_service_pb.js";
import type { Target as TargetMessage } from "./gen/svc/v1/types_pb.js";
import { flagsAuditOf, flagsChangeOf, refuseEmptySelector } from "./object-flags-request.js";
import { toConnectError } from "./pipeline-errors.js";
import { reschedulePrecondition } from "./reschedule-precondition.js";
import {
  checkResult,
  createResultsIngest,
  describeRequests,
  prepareResults,
  type ResultsIngest,
} from "./results-ingest.js";

export interface CommandServiceDeps {
  /** The command pipeline; every RPC validates against it and enqueues into it. */
  readonly core: Pick<Core, "submit" | "submitEncoded" | "newDowntimeId" | "newCommentId" | "clock"> & {
    /**
     * The projection (for RPCs that read it). What the state already refuses, Core.submit refuses
     * itself (src/core/precheck.ts).
     */
    readonly view?: Pick<CoreView, "projection" | "index">;
  };
  readonly logger?: Logger;
  /** Where every call is audited, accepted or refused (none when absent). */
  readonly audit?: ApiAudit;
}

/** The fast-path submissions of the services made here, by service. */
const ingests = new WeakMap<object, ResultsIngest>();

/**
 * How the HTTP handler serves ProcessCheckResults and ProcessCheckResult of this service from the
 * request body, without the Connect router (src/api/ingest-fast-path.ts); undefined for a service
 * not made by createCommandService, or made without a pipeline.
 */
export function resultsIngestOf(
  service: Partial<ServiceImpl<typeof CommandService>>,
): ResultsIngest | undefined {
  return ingests.get(service);
}

/**
 * The write service. Every RPC validates its whole request synchronously against the config in
 * force (`invalid_argument` / `not_found` with a message naming the offending item; a batch is
 * all-or-nothing), then answers OK once the commands are durably enqueued — not yet applied.
 * Without deps (no pipeline wired) every RPC answers `unimplemented`: a write is never acknowledged
 * without being enqueued.
 */
export function createCommandService(deps?: CommandServiceDeps): Partial<ServiceImpl<typeof CommandService>> {
  if (deps === undefined) return {};
  const { core, logger } = deps;
  const audit = deps.audit ?? NO_AUDIT;
  /** Runs one call and audits it: `command` is what the record shows (capitalized keys). */
  const audited = async <T>(
    ctx: HandlerContext,
    command: () => Record<string, unknown>,
    run: () => Promise<T>,
  ): Promise<T> => {
    const caller = ctx.values.get(callerKey);
    const rpc = `/${ctx.service.typeName}/${ctx.method.name}`;
    let shown: Record<string, unknown> = { Type: ctx.method.name };
    try {
      shown = command();
      const out = await run();
      audit.call(caller, rpc, shown);
      return out;
    } catch (e) {
      audit.call(caller, rpc, shown, e);
      throw e;
    }
  };
  // Not async: the commands are serialized by the time core.submit returns, and nothing here keeps
  // them alive while the batch waits for the disk.
  const submit = (commands: SubmittedCommand[], what?: string): Promise<void> =>
    core.submit(commands, { source: "api" }).catch((e: unknown) => {
      throw toConnectError(e, logger, what);
    });
  const service: Partial<ServiceImpl<typeof CommandService>> = {
    processCheckResult(req, ctx) {
      return audited(
        ctx,
        () => resultsCommand("ProcessCheckResult", describeRequests([req])),
        async () => {
          await submit([checkResult(req, core.clock.now())]);
          return {};
        },
      );
    },
    processCheckResults(req, ctx) {
      const accepted = req.results.length;
      return audited(
        ctx,
        () => resultsCommand("ProcessCheckResults", describeRequests(req.results)),
        async () => {
          // Prepared and serialized in one go, and then let go of before waiting for the disk: a
          // batch whose objects outlive a young-generation collection is copied, and promoted on
          // the second, and under full-speed ingestion those copies were most of the reader
          // thread's GC pauses.
          const enqueued = submit(prepareResults(req.results, core.clock.now()), "results");
          req.results = [];
          await enqueued;
          return { accepted };
        },
      );
    },
    acknowledgeProblem(req, ctx) {
      let t: Target;
      const author = authorOf(ctx.values.get(callerKey), req.author);
      return audited(
        ctx,
        () => {
          t = target(req.target);
          return {
            Type: "AcknowledgeProblem",
            Target: targetJson(t),
            Sticky: req.sticky,
            Notify: req.notify ?? true,
            Author: author,
            Comment: req.comment,
          };
        },
        async () => {
          await submit([
            {
              type: "AcknowledgeProblem",
              target: t,
              sticky: req.sticky,
              // Absent: true, as Icinga 2's acknowledge-problem.
              notify: req.notify ?? true,
              author,
              comment: req.comment,
            },
          ]);
          return {};
        },
      );
    },
    removeAcknowledgement(req, ctx) {
      let t: Target;
      return audited(
        ctx,
        () => {
          t = target(req.target);
          return { Type: "RemoveAcknowledgement", Target: targetJson(t) };
        },
        async () => {
          await submit([{ type: "RemoveAcknowledgement", target: t }]);
          return {};
        },
      );
    },
    scheduleDowntime(req, ctx) {
      let cmd: Extract<SubmittedCommand, { type: "ScheduleDowntime" }>;
      return audited(
        ctx,
        () => {
          cmd = {
            type: "ScheduleDowntime",
            id: core.newDowntimeId(),
            target: target(req.target),
            start: time(req.start, "start"),
            end: time(req.end, "end"),
            author: authorOf(ctx.values.get(callerKey), req.author),
            comment: req.comment,
            ...(req.flexible ? { flexible: true, durationMs: durationMs(req.duration) } : {}),
          };
          return {
            Type: "ScheduleDowntime",
            Id: cmd.id,
            Target: targetJson(cmd.target),
            Start: new Date(cmd.start).toISOString(),
            End: new Date(cmd.end).toISOString(),
            Author: cmd.author,
            Comment: cmd.comment,
            ...(cmd.flexible === true
              ? { Flexible: true, DurationSeconds: (cmd.durationMs ?? 0) / 1000 }
              : {}),
          };
        },
        async () => {
          await submit([cmd]);
          return { id: cmd.id };
        },
      );
    },
    sendCustomNotification(req, ctx) {
      let cmd: Extract<SubmittedCommand, { type: "SendCustomNotification" }>;
      return audited(
        ctx,
        () => {
          cmd = {
            type: "SendCustomNotification",
            target: target(req.target),
            author: authorOf(ctx.values.get(callerKey), req.author),
            comment: req.comment,
            force: req.force,
          };
          return {
            Type: "SendCustomNotification",
            Target: targetJson(cmd.target),
            Author: cmd.author,
            Comment: cmd.comment,
            Force: cmd.force,
          };
        },
        async () => {
          await submit([cmd]);
          return {};
        },
      );
    },
    deleteDowntime(req, ctx) {
      return audited(
        ctx,
        () => ({ Type: "DeleteDowntime", Id: req.id }),
        async () => {
          await submit([{ type: "DeleteDowntime", id: req.id }]);
          return {};
        },
      );
    },
    addComment(req, ctx) {
      let cmd: Extract<SubmittedCommand, { type: "AddComment" }>;
      return audited(
        ctx,
        () => {
          const o = req.object;
          if (o === undefined) throw new ConnectError("object is required", Code.InvalidArgument);
          cmd = {
            type: "AddComment",
            id: core.newCommentId(),
            object: { host: o.host, ...(o.service === undefined ? {} : { service: o.service }) },
            author: authorOf(ctx.values.get(callerKey), req.author),
            comment: req.comment,
          };
          return {
            Type: "AddComment",
            Id: cmd.id,
            Target: targetJson({ object: cmd.object }),
            Author: cmd.author,
            Comment: cmd.comment,
          };
        },
        async () => {
          await submit([cmd]);
          return { id: cmd.id };
        },
      );
    },
    rescheduleCheck(req, ctx) {
      let cmd: Extract<SubmittedCommand, { type: "RescheduleCheck" }>;
      return audited(
        ctx,
        () => {
          cmd = {
            type: "RescheduleCheck",
            target: target(req.target),
            force: req.force,
            author: authorOf(ctx.values.get(callerKey), req.author),
            ...(req.at === undefined ? {} : { runAt: runAtOf(req.at) }),
          };
          return {
            Type: "RescheduleCheck",
            Target: targetJson(cmd.target),
            ...(cmd.runAt === undefined ? {} : { At: new Date(cmd.runAt).toISOString() }),
            Force: cmd.force,
            Author: cmd.author,
          };
        },
        async () => {
          const projection = core.view?.projection;
          reschedulePrecondition(
            core.view?.index,
            cmd.target,
            cmd.force,
            projection === undefined ? undefined : (key) => projection.switchedOff(key, "activeChecks"),
          );
          await submit([cmd]);
          return {};
        },
      );
    },
    setObjectFlags(req, ctx) {
      let cmd: Extract<SubmittedCommand, { type: "SetObjectFlags" }>;
      return audited(
        ctx,
        () => {
          cmd = {
            type: "SetObjectFlags",
            target: target(req.target),
            flags: flagsChangeOf(req),
            author: authorOf(ctx.values.get(callerKey), req.author),
          };
          return {
            Type: "SetObjectFlags",
            Target: targetJson(cmd.target),
            ...flagsAuditOf(cmd.flags),
            Author: cmd.author,
          };
        },
        async () => {
          refuseEmptySelector(core.view, cmd.target);
          await submit([cmd]);
          return {};
        },
      );
    },
    deleteComment(req, ctx) {
      return audited(
        ctx,
        () => ({ Type: "DeleteComment", Id: req.id }),
        async () => {
          // An acknowledgement's comment goes with its acknowledgement, never on its own.
          if (core.view?.projection.comment(req.id)?.kind === "acknowledgement") {
            throw new ConnectError(
              `comment "${req.id}" is an acknowledgement's: remove the acknowledgement instead`,
              Code.FailedPrecondition,
            );
          }
          await submit([{ type: "DeleteComment", id: req.id }]);
          return {};
        },
      );
    },
  };
  ingests.set(service, createResultsIngest(core, logger));
  return service;
}

/**
 * The author a command records, as Icinga Web does: someone signed in to the dashboard (a session)
 * is the author, whatever the request says; a bearer-token identity's given author is kept (a bot
 * may act for a person) and is its name when empty; without identities the given author is kept.
 */
export function authorOf(caller: Caller, given: string): string {
  const p = caller.principal;
  if (p === undefined || p.name === API_TOKEN_PRINCIPAL.name) return given;
  if (p.signedIn === true || given === "") return p.name;
  return given;
}

function target(t: TargetMessage | undefined): Target {
  if (t === undefined)
    throw new ConnectError("target is required: an object or a selector", Code.InvalidArgument);
  switch (t.kind.case) {
    case "object":
      return {
        object: {
          host: t.kind.value.host,
          ...(t.kind.value.service === undefined ? {} : { service: t.kind.value.service }),
        },
      };
    case "selector":
      return { selector: t.kind.value };
    case undefined:
      throw new ConnectError("target is required: an object or a selector", Code.InvalidArgument);
    default: {
      const never: never = t.kind;
      throw new ConnectError(`unknown target ${String(never)}`, Code.InvalidArgument);
    }
  }
}

/** A target as the audit record shows it, with capitalized keys. */
function targetJson(t: Target): Record<string, unknown> {
  if ("selector" in t) return { Selector: t.selector };
  return {
    Object: { Host: t.object.host, ...(t.object.service === undefined ? {} : { Service: t.object.service }) },
  };
}

/** A flexible downtime's duration in ms: required and positive (whole milliseconds). */
function durationMs(d: Duration | undefined): number {
  if (d === undefined) throw new ConnectError("a flexible downtime needs a duration", Code.InvalidArgument);
  const ms = Number(d.seconds) * 1000 + Math.trunc(d.nanos / 1_000_000);
  if (!(ms > 0) || !Number.isSafeInteger(ms)) {
    throw new ConnectError("a flexible downtime's duration must be positive", Code.InvalidArgument);
  }
  return ms;
}

/** RescheduleCheck's `at`, refused when no date can show it. */
function runAtOf(t: Timestamp): number {
  const ms = timestampMs(t);
  if (!(ms >= 0 && ms <= 8.64e15)) throw new ConnectError("at is not a valid time", Code.InvalidArgument);
  return ms;
}

function time(t: Timestamp | undefined, field: string): number {
  if (t === undefined) throw new ConnectError(`${field} is required`, Code.InvalidArgument);
  return timestampMs(t);
}

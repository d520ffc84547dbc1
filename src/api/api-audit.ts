import { ConnectError } from "@connectrpc/connect";
import type { AuditLog } from "../audit/index.js";
import type { ResultsDescription } from "../core/encoded-results.js";
import type { Clock } from "../model/clock.js";
import type { Caller } from "./caller.js";

/** Records API calls in the audit log. */
export interface ApiAudit {
  /**
   * Records one call: its caller, full RPC path, the command (serialized as JSON here; capitalized
   * keys) and, when it was refused, the error (its message becomes the record's reason).
   */
  call(caller: Caller, rpc: string, command: Record<string, unknown>, error?: unknown): void;
}

/**
 * What the record of a ProcessCheckResult or ProcessCheckResults call shows: the result's object
 * (`Host`, `Service`), or for a batch how many results (`Count`) and the objects of the first 10
 * (`Objects`), in order. Without a description (a body that never decoded), only the type.
 */
export function resultsCommand(
  name: "ProcessCheckResult" | "ProcessCheckResults",
  d: ResultsDescription | undefined,
): Record<string, unknown> {
  if (d === undefined) return { Type: name };
  const objects = d.objects.map(([host, service]) =>
    service === null ? { Host: host } : { Host: host, Service: service },
  );
  if (name === "ProcessCheckResults") return { Type: name, Count: d.count, Objects: objects };
  return { Type: name, ...objects[0] };
}

/** An audit that records nothing (no audit log wired: in-process tests). */
export const NO_AUDIT: ApiAudit = { call() {} };

/** The API's audit over the durable log. */
export function createApiAudit(log: AuditLog, clock: Pick<Clock, "now">): ApiAudit {
  return {
    call(caller, rpc, command, error) {
      log.record({
        at: clock.now(),
        source: "api",
        ...(caller.principal === undefined ? {} : { principal: caller.principal }),
        peer: caller.peer,
        rpc,
        commandJson: JSON.stringify(command),
        outcome: error === undefined ? "accepted" : "rejected",
        // A ConnectError's message is what the client was told; anything else was answered
        // `internal` without its cause, and is recorded so.
        reason:
          error === undefined ? "" : error instanceof ConnectError ? error.rawMessage : "internal error",
      });
    },
  };
}

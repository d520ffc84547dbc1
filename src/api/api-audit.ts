import { ConnectError } from "@connectrpc/connect";
import type { AuditLog } from "../audit/index.js";
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
        reason:
          error === undefined ? "" : error instanceof ConnectError ? error.rawMessage : "internal error",
      });
    },
  };
}

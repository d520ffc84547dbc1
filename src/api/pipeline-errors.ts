import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "../model/logger.js";
import { OutOfRangeError, RejectedError, StoreError } from "../store/errors.js";
import { boundedMessage } from "./error-message-bound.js";

/**
 * The Connect error for a failure of the pipeline: refusals keep their message (it was written for
 * the caller; cut to 512 characters, error-message-bound.ts), prefixed `<batchField>[i]: ` when a
 * batch's item was refused; a full data directory is `resource_exhausted` (nothing was enqueued;
 * the same request can succeed once there is room); the replicated command log without a quorum
 * is `unavailable` (docs/replication.md); anything else is `internal` with a generic
 * message, the cause going to the log only.
 */
export function toConnectError(e: unknown, logger?: Logger, batchField?: string): ConnectError {
  if (e instanceof ConnectError) return e;
  if (e instanceof RejectedError) {
    const where = batchField !== undefined && e.index !== undefined ? `${batchField}[${e.index}]: ` : "";
    const code =
      e.reason === "not_found"
        ? Code.NotFound
        : e.reason === "failed_precondition"
          ? Code.FailedPrecondition
          : Code.InvalidArgument;
    // Bounded: a refusal may quote a name of megabytes the client sent.
    return new ConnectError(boundedMessage(`${where}${e.message}`), code);
  }
  if (e instanceof OutOfRangeError) return new ConnectError(boundedMessage(e.message), Code.OutOfRange);
  if (e instanceof StoreError && e.reason === "disk_full") {
    logger?.warn("command refused: the data directory is full", { error: String(e) });
    return new ConnectError(
      "the data directory is full: the command was not enqueued; retry once there is room",
      Code.ResourceExhausted,
    );
  }
  if (e instanceof StoreError && e.reason === "unavailable") {
    logger?.warn("command refused: the replicated command log is unavailable", { error: String(e) });
    return new ConnectError(
      "the replicated command log did not store the command in time (no quorum of NATS servers?); it may still have been stored: retry once it answers",
      Code.Unavailable,
    );
  }
  logger?.error("command pipeline failure", { error: String(e) });
  return new ConnectError("the command could not be enqueued", Code.Internal);
}

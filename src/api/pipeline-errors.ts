import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "../model/logger.js";
import { RejectedError } from "../store/errors.js";

/**
 * The Connect error for a failure of the pipeline: refusals keep their message (it was written for
 * the caller), prefixed `<batchField>[i]: ` when a batch's item was refused; anything else is
 * `internal` with a generic message, the cause going to the log only.
 */
export function toConnectError(e: unknown, logger?: Logger, batchField?: string): ConnectError {
  if (e instanceof ConnectError) return e;
  if (e instanceof RejectedError) {
    const where = batchField !== undefined && e.index !== undefined ? `${batchField}[${e.index}]: ` : "";
    const code = e.reason === "not_found" ? Code.NotFound : Code.InvalidArgument;
    return new ConnectError(`${where}${e.message}`, code);
  }
  logger?.error("command pipeline failure", { error: String(e) });
  return new ConnectError("the command could not be enqueued", Code.Internal);
}

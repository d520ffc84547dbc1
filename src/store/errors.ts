/**
 * Why the store refused a request. `invalid` means the request itself is wrong (bad exit status,
 * bad selector, bad page token); `not_found` means it names something that is not configured or
 * does not exist. The API layer maps these to `invalid_argument` and `not_found`; the message is
 * written for the caller and names the offending item.
 */
export type RejectReason = "invalid" | "not_found";

/** A command or query the store refused before doing anything. */
export class RejectedError extends Error {
  override readonly name = "RejectedError";
  constructor(
    readonly reason: RejectReason,
    message: string,
    /** For a batch: the position of the command that was refused. */
    readonly index?: number,
  ) {
    super(message);
  }
}

/** The writer failed (disk full, corrupt database, closed store); the cause says why. */
export class StoreError extends Error {
  override readonly name = "StoreError";
}

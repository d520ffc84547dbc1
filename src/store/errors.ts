/**
 * Why the store refused a request. `invalid` means the request itself is wrong (bad exit status,
 * bad selector, bad page token); `not_found` means it names something that is not configured or
 * does not exist; `failed_precondition` that what it names is in a state that refuses it (a passive
 * result for an object whose passive checks are switched off; acknowledging an object the projection
 * shows without a problem: src/core/precheck.ts). The API layer maps these to
 * `invalid_argument`, `not_found` and `failed_precondition`; the message is written for the caller
 * and names the offending item.
 */
export type RejectReason = "invalid" | "not_found" | "failed_precondition";

/**
 * A read of the past asked for a moment the log does not answer: in the future, or older than what
 * it keeps (ListStatus `at`: src/store/as-of.ts). The message says which, and the oldest moment it
 * can answer. `stale`: what a plan named was dropped by retention before it was rebuilt (planning
 * again may answer). The API layer maps it to `out_of_range`.
 */
export class OutOfRangeError extends Error {
  override readonly name = "OutOfRangeError";
  constructor(
    message: string,
    readonly stale = false,
  ) {
    super(message);
  }
}

/** A command or query the store refused before doing anything. */
export class RejectedError extends Error {
  override readonly name = "RejectedError";
  constructor(
    readonly reason: RejectReason,
    message: string,
    /** For a batch: the position of the command that was refused. */
    readonly index?: number,
    /**
     * For a submission decoded on the writer's thread: what it was, as its decoder describes it
     * (SubmissionDecoder.describe), so that its owner can say what was refused (the audit).
     */
    readonly detail?: unknown,
  ) {
    super(message);
  }
}

/**
 * Why the writer failed a request: `disk_full` when the data directory's filesystem has no room
 * (nothing was enqueued; the same request can succeed once space returns), `unavailable` when the
 * replicated command log did not store it in time (no quorum: docs/replication.md; it may still
 * have been stored), `failed` for anything else (corrupt database, closed store).
 */
export type StoreFailure = "failed" | "disk_full" | "unavailable";

/** The writer failed (disk full, corrupt database, closed store); the message says why. */
export class StoreError extends Error {
  override readonly name = "StoreError";
  readonly reason: StoreFailure;
  constructor(message: string, options?: ErrorOptions & { reason?: StoreFailure }) {
    super(message, options);
    this.reason = options?.reason ?? "failed";
  }
}

/**
 * Whether `e`, thrown by SQLite, says the filesystem is full. Such an error is transient: the
 * writer keeps what it holds and tries again, instead of stopping.
 */
export function isDiskFull(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === "SQLITE_FULL";
}

/**
 * Events the writer applied but could not record because the disk is full: it keeps them and
 * records them once there is room again (Writer#applyPending).
 */
export class DiskFullError extends Error {
  override readonly name = "DiskFullError";
}

import type { KnownObjects } from "./state-machine.js";

/**
 * Turns a submission that reaches the writer still in its wire form (a request body, transferred
 * undecoded from the owning thread) into the elements of a logged batch. It runs on the writer's
 * thread, so that decoding never costs the thread that serves reads; the writer's entry module
 * provides it (src/core/writer-worker.ts).
 */
export interface SubmissionDecoder {
  /**
   * The elements of the batch to log — what JSON.parse of the batch row gives, each one what
   * StateMachineFactory.prepare takes — decoded from `body` (a submission of `kind`, a tag the owner
   * and the decoder agree on) and validated against `objects`, those of the config in force. `at` is the
   * owner's receive time. Throws RejectedError when a command is refused (nothing is enqueued);
   * returns undefined when the body is in a form it does not decode exactly, and the owner then
   * decodes it itself.
   */
  decode(kind: string, body: Uint8Array, at: number, objects: KnownObjects): unknown[] | undefined;
  /**
   * What the owner is told of an enqueued submission besides how many elements it logged (the
   * results' objects, for the audit record), made from the logged elements: a few strings and
   * numbers in a flat array, which travels inside one array for the whole group commit — nested
   * objects per request cost structured clone ten times as much. A refused submission's
   * description travels in its RejectedError (`detail`), which `decode` sets. Without it the
   * owner is told only the count.
   */
  describe?(kind: string, logged: unknown[]): readonly (string | number | null)[];
  /**
   * Decoding on a thread of its own, pipelined ahead of the writer (src/store/decode-ahead.ts):
   * that thread runs `module`, which calls runDecoderThread with the AheadDecoder that decodes
   * what `decode` would, and the writer only `admit`s the result. Without it, `decode` runs on the
   * writer's thread.
   */
  readonly ahead?: {
    /** The decoding thread's entry module. */
    readonly module: URL;
    /**
     * Validates, against `objects`, the elements the decoding thread made of a submission of `kind`
     * (AheadDecoder's `prepared`, parsed), with the rules and refusals of `decode`: throws
     * RejectedError when one is refused.
     */
    admit(kind: string, elements: readonly unknown[], objects: KnownObjects): void;
  };
}

/** What the decoding thread makes of a submission that it decodes (AheadDecoder). */
export interface DecodedAhead {
  /** The JSON text of the logged elements: exactly JSON.stringify of what `decode` returns. */
  readonly logged: string;
  /**
   * The JSON text of the elements to admit and apply: the logged ones, each perhaps with more of
   * the work of applying it done already (StateMachineFactory.prepare takes either).
   */
  readonly prepared: string;
}

/** The decoding thread's half of a SubmissionDecoder with `ahead`. */
export interface AheadDecoder {
  /**
   * Decodes `body` as SubmissionDecoder.decode does, without the checks that need the config or
   * the engine (those are `admit`'s): throws RejectedError for a body refused as such, returns
   * undefined for one the owner decodes itself.
   */
  decode(kind: string, body: Uint8Array, at: number): DecodedAhead | undefined;
}

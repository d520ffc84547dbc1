/**
 * The body of the writer's decoding thread (src/store/decode-ahead.ts): decodes each submission it
 * is sent with the given AheadDecoder and answers, in the order sent, with what it made of it, a
 * refusal, the body back (not decodable here) or the error. Its CPU time rides on the answers, a
 * few times a second, and answers a `cpu` message, for the writer's stats.
 */
import { parentPort, workerData } from "node:worker_threads";
import { RejectedError, type RejectReason } from "./errors.js";
import { packLogBody } from "./log-body.js";
import type { AheadDecoder } from "./submission.js";
import { threadCpuMs } from "./thread-cpu.js";
import { applyThreadPolicy, type ThreadPolicy } from "./thread-priority.js";

/** A submission to decode: the writer's request id, its kind, body and receive time. */
export interface ToDecoder {
  readonly id: number;
  readonly kind: string;
  readonly body: Uint8Array;
  readonly at: number;
}

/** What the decoding thread answers for one submission. */
export type FromDecoder = (
  | {
      readonly t: "decoded";
      readonly logged: string;
      readonly prepared: string;
      /** `logged` as the log stores it (packLogBody), for a submission big enough to be a row of its own. */
      readonly packed?: Uint8Array;
    }
  | {
      readonly t: "rejected";
      readonly reason: RejectReason;
      readonly message: string;
      readonly index: number | undefined;
      readonly detail: unknown;
    }
  | { readonly t: "undecoded"; readonly body: Uint8Array }
  | { readonly t: "failed"; readonly message: string }
) & { readonly id: number; readonly cpuMs?: number };

/** What the thread is started with (workerData): the writer's CPU policy, which it takes too. */
export interface DecoderThreadData {
  readonly priority: ThreadPolicy;
  readonly nice: number;
}

const CPU_EVERY_MS = 250;

/**
 * The logged text from which a submission is packed here and logged as a row of its own (a batch
 * of a few dozen results); smaller ones share the group's row (one-result requests, see the writer).
 */
export const OWN_ROW_CHARS = 4096;

export function runDecoderThread(decoder: AheadDecoder): void {
  const port = parentPort;
  if (port === null) throw new Error("the decoder must run in a worker thread");
  const data = workerData as DecoderThreadData | undefined;
  if (data !== undefined) applyThreadPolicy(data.priority, data.nice);
  let cpuAt = 0;
  port.on("message", (m: ToDecoder | { readonly t: "cpu" }) => {
    if ("t" in m) {
      port.postMessage({ t: "cpu", cpuMs: threadCpuMs() });
      return;
    }
    let answer: FromDecoder;
    let transfer: ArrayBuffer[] | undefined;
    try {
      const d = decoder.decode(m.kind, m.body, m.at);
      if (d === undefined) {
        answer = { t: "undecoded", id: m.id, body: m.body };
        transfer = wholeBuffer(m.body);
      } else if (d.logged.length >= OWN_ROW_CHARS) {
        // Packed here, off the writer's thread; such a batch is logged as a row of its own.
        const packed = packLogBody(d.logged);
        answer = { t: "decoded", id: m.id, logged: d.logged, prepared: d.prepared, packed };
        transfer = wholeBuffer(packed);
      } else answer = { t: "decoded", id: m.id, logged: d.logged, prepared: d.prepared };
    } catch (e) {
      answer =
        e instanceof RejectedError
          ? {
              t: "rejected",
              id: m.id,
              reason: e.reason,
              message: e.message,
              index: e.index,
              detail: e.detail,
            }
          : { t: "failed", id: m.id, message: String(e) };
    }
    const now = performance.now();
    if (now - cpuAt >= CPU_EVERY_MS) {
      cpuAt = now;
      const cpuMs = threadCpuMs();
      if (cpuMs !== undefined) answer = { ...answer, cpuMs };
    }
    port.postMessage(answer, transfer);
  });
}

/** The body's buffer when the body is all of it (then it moves instead of being copied). */
export function wholeBuffer(body: Uint8Array): ArrayBuffer[] | undefined {
  const b = body.buffer;
  return b instanceof ArrayBuffer && body.byteOffset === 0 && body.byteLength === b.byteLength
    ? [b]
    : undefined;
}

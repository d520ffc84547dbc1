import { type ConnectionOptions, createInbox, headers, type NatsConnection } from "@nats-io/transport-node";

/** JetStream's acknowledgement of a stored message. */
export interface PubAck {
  readonly seq: number;
  /** The message id was seen within the stream's duplicate window: nothing new was stored. */
  readonly duplicate: boolean;
}

/**
 * Publishes messages to JetStream with a message id and awaits each acknowledgement: what
 * `jetstream(nc).publish(subject, data, { msgID, timeout })` does, without nats.js's machinery per
 * request (a timer, a promise race, and an Error built with its stack trace each time a request is
 * settled, even when it succeeded), which cost the dispatcher about a quarter of its CPU per job.
 * One inbox subscription takes every acknowledgement; one sweep times out the late ones.
 */
export interface AckedPublisher {
  /**
   * Resolves with the acknowledgement; rejects when no stream takes the subject (or none has a
   * leader), when JetStream answers an error, after the publisher's timeout, or once it is closed.
   */
  publish(subject: string, data: Uint8Array, msgId: string): Promise<PubAck>;
  /** Acknowledgements awaited. */
  readonly pending: number;
  close(): void;
}

interface Waiting {
  resolve(ack: PubAck): void;
  reject(e: Error): void;
  readonly deadline: number;
}

const decoder = new TextDecoder();

/** How long jobs and results wait for JetStream's acknowledgement before their publish is retried. */
export const PUBLISH_ACK_TIMEOUT_MS = 2_000;

export function createAckedPublisher(nc: NatsConnection, timeoutMs: number): AckedPublisher {
  // Under the connection's inbox prefix, where NATS permissions let its replies through.
  const prefix = createInbox((nc as { options?: ConnectionOptions }).options?.inboxPrefix);
  // Insertion order is deadline order (one timeout for all): the sweep stops at the first not due.
  const waiting = new Map<number, Waiting>();
  let next = 0;
  let closed = false;

  const settle = (id: number, data: Uint8Array, code: number | undefined): void => {
    const w = waiting.get(id);
    if (w === undefined) return; // Timed out already.
    waiting.delete(id);
    if (data.length === 0) {
      w.reject(
        new Error(code === 503 ? "no responders: no stream (leader) for the subject" : `status ${code}`),
      );
      return;
    }
    try {
      const j = JSON.parse(decoder.decode(data)) as {
        seq?: unknown;
        duplicate?: unknown;
        error?: { code?: number; description?: string };
      };
      if (j.error !== undefined)
        w.reject(new Error(`JetStream: ${j.error.description ?? "error"} (${j.error.code})`));
      else if (typeof j.seq !== "number") w.reject(new Error("not a JetStream acknowledgement"));
      else w.resolve({ seq: j.seq, duplicate: j.duplicate === true });
    } catch (e) {
      w.reject(new Error(`not a JetStream acknowledgement: ${String(e)}`));
    }
  };

  const sub = nc.subscribe(`${prefix}.*`, {
    callback: (err, m) => {
      if (err !== null) return;
      settle(Number(m.subject.slice(prefix.length + 1)), m.data, m.headers?.code);
    },
  });

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, w] of waiting) {
        if (w.deadline > now) break;
        waiting.delete(id);
        w.reject(new Error(`no acknowledgement within ${timeoutMs} ms`));
      }
    },
    Math.max(10, Math.min(250, timeoutMs / 4)),
  );
  sweep.unref();

  return {
    publish(subject, data, msgId) {
      if (closed || nc.isClosed()) return Promise.reject(new Error("publisher closed"));
      const id = ++next;
      const h = headers();
      h.set("Nats-Msg-Id", msgId);
      return new Promise<PubAck>((resolve, reject) => {
        waiting.set(id, { resolve, reject, deadline: Date.now() + timeoutMs });
        try {
          nc.publish(subject, data, { reply: `${prefix}.${id}`, headers: h });
        } catch (e) {
          waiting.delete(id);
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
    },
    get pending() {
      return waiting.size;
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(sweep);
      sub.unsubscribe();
      for (const w of waiting.values()) w.reject(new Error("publisher closed"));
      waiting.clear();
    },
  };
}

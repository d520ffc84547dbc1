/**
 * The body of the writer's thread. Owns the Writer (SQLite + engine) so that neither fsyncs nor engine work run
 * on the thread that serves reads. Group commit falls out of the event loop: every message that
 * arrives while a flush runs waits in `pending`, and the next flush enqueues all of them with one
 * fsync'd transaction, acknowledges them, then applies them.
 *
 * Deltas go to the reader by pull: the reader asks for the next part when it has applied the last
 * one, and meanwhile changes coalesce in a DeltaBuffer. A busy reader thus never finds a backlog of
 * messages it would have to drain in one go.
 */
import { parentPort } from "node:worker_threads";
import { createDeltaBuffer } from "./delta-buffer.js";
import type { ConfigRow } from "./event-log.js";
import type { FromWriter, ToWriter, WriterOptions } from "./protocol.js";
import type { ProjectionDelta } from "./records.js";
import type { StateMachineFactory } from "./state-machine.js";
import { Writer } from "./writer.js";

type Pending = Exclude<ToWriter, { t: "init" | "pull" | "stats" }>;

/**
 * Runs the writer in the current worker thread with the given state machines, answering the
 * messages of Store (src/store/store.ts). The worker's entry module (which picks the engine) calls
 * this once.
 */
export function runWriterThread(engines: StateMachineFactory): void {
  const port = parentPort;
  if (port === null) throw new Error("the writer must run in a worker thread");
  let writer: Writer | undefined;
  let options: WriterOptions | undefined;
  let pending: Pending[] = [];
  let scheduled = false;
  let closed = false;
  const buffer = createDeltaBuffer();
  let readerWaiting = false;

  const post = (m: FromWriter): void => port.postMessage(m);

  port.on("message", (m: ToWriter) => {
    if (m.t === "init") {
      try {
        options = m.options;
        writer = Writer.open(m.dataDir, m.config, Date.now(), engines, m.options, m.configDigest);
        post({
          t: "ready",
          projection: writer.projection.snapshot(),
          nextWakeup: writer.nextWakeup(),
          recovered: writer.recovered,
        });
      } catch (e) {
        post({ t: "fatal", message: `cannot open the event log in ${m.dataDir}: ${String(e)}` });
      }
      return;
    }
    if (m.t === "stats") {
      const h = process.memoryUsage();
      post({ t: "stats", id: m.id, heapUsed: h.heapUsed, heapTotal: h.heapTotal });
      return;
    }
    if (m.t === "pull") {
      readerWaiting = true;
      pump();
      return;
    }
    pending.push(m);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });

  function flush(): void {
    scheduled = false;
    const w = writer;
    if (w === undefined || closed) return;
    const batch = pending;
    pending = [];
    let rows: { at: number; body: string | Uint8Array }[] = [];
    let configs: ConfigRow[] = [];
    let ids: number[] = [];
    const commit = (): void => {
      if (ids.length === 0) return;
      try {
        w.enqueue(rows, configs);
        post({ t: "acked", ids });
      } catch (e) {
        post({ t: "failed", ids, message: String(e) });
      }
      rows = [];
      configs = [];
      ids = [];
    };
    try {
      for (const m of batch) {
        switch (m.t) {
          case "submit":
            rows.push({ at: m.at, body: m.body });
            ids.push(m.id);
            break;
          case "config": {
            const c = w.configCommand(m.config, m.at, m.digest);
            if (c !== undefined) {
              rows.push(c.row);
              configs.push(c.config);
            }
            ids.push(m.id);
            break;
          }
          case "sync":
            commit();
            sendDelta(w.applyPending());
            // Everything applied so far goes out now, then the answer: messages arrive in order.
            for (let d = buffer.take(deltaChunk()); d !== undefined; d = buffer.take(deltaChunk())) {
              post({ t: "delta", delta: d });
            }
            post({ t: "done", id: m.id });
            break;
          case "snapshot":
            commit();
            sendDelta(w.applyPending());
            w.snapshot();
            post({ t: "done", id: m.id });
            break;
          case "close":
            commit();
            sendDelta(w.applyPending());
            w.snapshot();
            w.close();
            closed = true;
            post({ t: "done", id: m.id });
            return;
          default: {
            const never: never = m;
            throw new Error(`unknown message ${String(never)}`);
          }
        }
      }
      commit();
      sendDelta(w.applyPending());
      post({ t: "applied", nextWakeup: w.nextWakeup() });
    } catch (e) {
      post({ t: "fatal", message: `writer failed: ${String(e)}` });
      closed = true;
    }
  }

  function deltaChunk(): number {
    return options?.deltaChunk ?? 500;
  }

  function sendDelta(delta: ProjectionDelta | undefined): void {
    if (delta === undefined) return;
    buffer.add(delta);
    pump();
  }

  /** Sends the next part if the reader asked for one. */
  function pump(): void {
    if (!readerWaiting) return;
    const d = buffer.take(deltaChunk());
    if (d === undefined) return;
    readerWaiting = false;
    post({ t: "delta", delta: d });
  }
}

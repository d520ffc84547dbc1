import { DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { connect, headers, type NatsConnection, nanos } from "@nats-io/transport-node";
import { LogUnavailableError, type ReplicaState, type ReplicatedLog } from "../store/replicated-log.js";
import { groupsBetween } from "./command-gaps.js";
import { type NatsAuth, natsConnectOptions } from "./connection.js";
import {
  COMMAND_PARTS_SUBJECT,
  COMMANDS_STREAM,
  COMMANDS_SUBJECT,
  SNAPSHOT_PARTS_SUBJECT,
  SNAPSHOT_SUBJECT,
  SNAPSHOTS_STREAM,
} from "./names.js";
import { DUPLICATE_WINDOW_MS, isNotFound } from "./streams.js";

/** What the owner sends the writer's thread to open the command stream with (structured-cloned). */
export interface CommandStreamOptions {
  /** `-nats`: the servers, comma-separated. */
  readonly servers: string;
  readonly auth?: NatsAuth;
  /** The connection's name (for NATS monitoring). */
  readonly name: string;
  /** `-nats-replicas`. */
  readonly replicas: number;
  /** How long a publish may take, retries included, before it is answered `unavailable` (ms). */
  readonly publishBudgetMs?: number;
  /** Positions kept before the older kept snapshot's (default 1,000; tests make it small). */
  readonly trimMargin?: number;
}

/** One attempt's wait for JetStream's acknowledgement. */
const ATTEMPT_TIMEOUT_MS = 2_000;
/**
 * A write waits this long at most for a quorum (retries with the same message id): long enough for
 * JetStream to elect a new leader for the stream when a node dies (a few seconds; more on a loaded
 * machine), short enough to answer `unavailable` without a quorum.
 */
const DEFAULT_PUBLISH_BUDGET_MS = 10_000;
/** How often the follower asks for the stream's last position (replica lag, catching up). */
const STATE_EVERY_MS = 1_000;
/** A follower that delivered nothing this long while the log has more makes its consumer anew. */
const STALLED_MS = 5_000;
/** Room left in a message for its headers. */
const HEADROOM = 4_096;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A get of a message that is not there answers null; any other failure stays one. */
function noMessage(e: unknown): null {
  if (/no message found|not found/i.test(String(e))) return null;
  throw e;
}

/** How long one call to JetStream may take before the follower gives up on it and tries again. */
const CALL_BOUND_MS = 10_000;

/** `p`, or a rejection after CALL_BOUND_MS: nothing the follower awaits can hang it. */
function bounded<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer in ${CALL_BOUND_MS} ms`)), CALL_BOUND_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Makes sure the command stream exists with these replicas: file storage, kept whole (retention by
 * limits, none set: snapshots bound it, docs/replication.md), de-duplication by message id within
 * the zones' duplicate window.
 */
async function ensureCommandStream(nc: NatsConnection, replicas: number): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const cfg = {
    name: COMMANDS_STREAM,
    subjects: [COMMANDS_SUBJECT, COMMAND_PARTS_SUBJECT],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    num_replicas: replicas,
  };
  const snapshots = {
    name: SNAPSHOTS_STREAM,
    subjects: [SNAPSHOT_SUBJECT, SNAPSHOT_PARTS_SUBJECT],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    num_replicas: replicas,
  };
  for (const c of [cfg, snapshots]) {
    try {
      const info = await jsm.streams.info(c.name);
      if (info.config.num_replicas !== replicas) await jsm.streams.update(c.name, c);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      await jsm.streams.add(c);
    }
  }
}

/** Groups kept before the older kept snapshot's position: a group's parts come shortly before it. */
const TRIM_MARGIN = 1_000;

/**
 * The replicated command log on a JetStream stream (docs/replication.md): a group is one message
 * on `lookout.cmd` with the publisher's id as its message id (a publish retried after a lost
 * acknowledgement is stored once); a group larger than the server's `max_payload` goes as parts on
 * `lookout.cmdpart` first, and the group's message names the parts' positions. The follower is an
 * ordered consumer from a position, filtered to `lookout.cmd`: it fetches the parts it needs by
 * position, so a follower resuming between a group's parts and its message still finds them.
 */
export async function createCommandStream(o: CommandStreamOptions): Promise<ReplicatedLog> {
  const nc = await connect({
    ...natsConnectOptions(o.servers, o.name, o.auth),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
  const js = jetstream(nc);
  const budget = o.publishBudgetMs ?? DEFAULT_PUBLISH_BUDGET_MS;
  const maxMessage = Math.max(64 * 1024, nc.info?.max_payload ?? 1024 * 1024) - HEADROOM;
  let ensured: Promise<void> | undefined;
  let closed = false;
  const ensure = (): Promise<void> => {
    ensured ??= ensureCommandStream(nc, o.replicas).catch((e: unknown) => {
      ensured = undefined;
      throw e;
    });
    return ensured;
  };
  await ensure().catch(() => {
    // Created on the first publish or follow that reaches a quorum.
  });

  /** Publishes with retries under the same message id until `deadline`. */
  const publishOne = async (
    subject: string,
    data: Uint8Array,
    msgID: string,
    deadline: number,
    hdrs?: ReturnType<typeof headers>,
  ): Promise<number> => {
    let last: unknown;
    while (!closed) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      try {
        await ensure();
        const ack = await js.publish(subject, data, {
          msgID,
          timeout: Math.min(ATTEMPT_TIMEOUT_MS, Math.max(100, left)),
          ...(hdrs === undefined ? {} : { headers: hdrs }),
        });
        return ack.seq;
      } catch (e) {
        last = e;
        await sleep(Math.min(250, Math.max(0, deadline - Date.now())));
      }
    }
    throw new LogUnavailableError(
      `the command log did not store the write in ${Math.round(budget / 1000)} s (no JetStream quorum?): ${String(last)}`,
    );
  };

  /** Publishes `data` as parts on `partsSubject` and a header message naming them; its position. */
  const publishInParts = async (
    subject: string,
    partsSubject: string,
    data: Uint8Array,
    id: string,
    deadline: number,
    extra: Record<string, string> = {},
  ): Promise<{ position: number; firstPart: number }> => {
    const parts: number[] = [];
    for (let i = 0, at = 0; at < data.length; i++, at += maxMessage) {
      parts.push(await publishOne(partsSubject, data.subarray(at, at + maxMessage), `${id}.p${i}`, deadline));
    }
    const h = headers();
    h.set("Lookout-Parts", parts.join(","));
    for (const [k, v] of Object.entries(extra)) h.set(k, v);
    const position = await publishOne(subject, new Uint8Array(0), id, deadline, h);
    return { position, firstPart: parts[0] ?? position };
  };

  /** The bytes of a message in parts (its `Lookout-Parts` header), read by position. */
  const assembleFrom = async (stream: string, parts: string): Promise<Uint8Array> => {
    const jsm = await jetstreamManager(nc);
    const chunks: Uint8Array[] = [];
    for (const seq of parts.split(",").map(Number)) {
      const m = await jsm.streams.getMessage(stream, { seq });
      if (m === null) throw new Error(`part ${seq} of a message in ${stream} is missing`);
      chunks.push(m.data);
    }
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  };

  /** The groups stored after `after` and before `before` (see groupsBetween), read by position. */
  const missedGroups = async (after: number, before: number, skip: ReadonlySet<number>) => {
    const jsm = await jetstreamManager(nc);
    // What the log no longer keeps is not looked for (a server behind it stops, see the poll).
    const first = (await jsm.streams.info(COMMANDS_STREAM)).state.first_seq;
    return groupsBetween({
      after: Math.max(after, first - 1),
      before,
      skip,
      subject: COMMANDS_SUBJECT,
      get: async (seq) => {
        const m = await jsm.streams.getMessage(COMMANDS_STREAM, { seq }).catch(noMessage);
        return m === null
          ? null
          : { subject: m.subject, data: m.data, parts: m.header?.get("Lookout-Parts") ?? "" };
      },
      assemble: (parts) => assembleFrom(COMMANDS_STREAM, parts),
    });
  };

  /** The newest message on `subject` of `stream`, or null. */
  const lastOn = async (stream: string, subject: string) => {
    const jsm = await jetstreamManager(nc);
    return jsm.streams.getMessage(stream, { last_by_subj: subject }).catch(noMessage);
  };

  return {
    async firstPosition() {
      await ensure();
      const jsm = await jetstreamManager(nc);
      const info = await jsm.streams.info(COMMANDS_STREAM);
      return info.state.messages === 0 ? 0 : info.state.first_seq;
    },

    async publishSnapshot(position, snapshot) {
      await ensure();
      const deadline = Date.now() + Math.max(budget, 30_000);
      const previous = await lastOn(SNAPSHOTS_STREAM, SNAPSHOT_SUBJECT);
      const published = await publishInParts(
        SNAPSHOT_SUBJECT,
        SNAPSHOT_PARTS_SUBJECT,
        snapshot,
        `snapshot-${position}`,
        deadline,
        { "Lookout-Position": String(position) },
      );
      if (previous === null) return;
      // Two kept: the new one and the one before; the log keeps what follows the older.
      const jsm = await jetstreamManager(nc);
      const older = Number(previous.header?.get("Lookout-Position") ?? "0");
      const olderFirst = Number(previous.header?.get("Lookout-Parts")?.split(",")[0] ?? previous.seq);
      if (olderFirst > 0 && olderFirst < published.firstPart) {
        await jsm.streams.purge(SNAPSHOTS_STREAM, { seq: olderFirst });
      }
      const margin = o.trimMargin ?? TRIM_MARGIN;
      if (older > margin) await jsm.streams.purge(COMMANDS_STREAM, { seq: older - margin });
    },

    async latestSnapshot() {
      await ensure();
      const m = await lastOn(SNAPSHOTS_STREAM, SNAPSHOT_SUBJECT);
      if (m === null) return undefined;
      const parts = m.header?.get("Lookout-Parts") ?? "";
      return parts === "" ? m.data : assembleFrom(SNAPSHOTS_STREAM, parts);
    },

    async publish(id, group) {
      const deadline = Date.now() + budget;
      if (group.length <= maxMessage) return publishOne(COMMANDS_SUBJECT, group, id, deadline);
      return (await publishInParts(COMMANDS_SUBJECT, COMMAND_PARTS_SUBJECT, group, id, deadline)).position;
    },

    follow(after, deliver, onState) {
      let position = after;
      let last = 0;
      let connected = true;
      let stopped: string | undefined;
      /** Ends the consumer in use (its messages, and the wait for the next one); then a new one is made. */
      let abandon: (() => void) | undefined;
      let progressAt = Date.now();
      const report = () =>
        onState({
          connected,
          last,
          ...(stopped === undefined ? {} : { error: stopped }),
        } satisfies ReplicaState);
      const poll = async () => {
        while (!closed && stopped === undefined) {
          try {
            await bounded(ensure(), "the command stream");
            // The last group's position (parts of a group that never followed may come after it).
            const m = await bounded(lastOn(COMMANDS_STREAM, COMMANDS_SUBJECT), "the last group");
            last = m?.seq ?? 0;
            connected = true;
            const jsm = await bounded(jetstreamManager(nc), "JetStream");
            const info = await bounded(jsm.streams.info(COMMANDS_STREAM), "the stream's state");
            if (info.state.messages > 0 && info.state.first_seq > position + 1 && last > position) {
              // Never skipped: what this server missed is gone from the log.
              stopped = `this server's copy (position ${position}) is behind what the command log keeps (from ${info.state.first_seq}): restart it to take the newest snapshot`;
              report();
              abandon?.();
              return;
            }
          } catch {
            connected = false;
          }
          report();
          await sleep(STATE_EVERY_MS);
        }
      };
      void poll();
      // A consumer that lost its server (a node restarted, the quorum came back) may wait for its
      // pull to expire, or for ever: one that delivers nothing while the log has more is abandoned
      // and made anew from the position. Apart from the poll, whose calls a loaded NATS slows.
      const watchdog = setInterval(() => {
        if (closed || stopped !== undefined) {
          clearInterval(watchdog);
          return;
        }
        if (last > position && Date.now() - progressAt > STALLED_MS && abandon !== undefined) {
          progressAt = Date.now();
          abandon();
        }
      }, STATE_EVERY_MS);
      watchdog.unref?.();
      const run = async () => {
        while (!closed && stopped === undefined) {
          let messages:
            | Awaited<ReturnType<Awaited<ReturnType<typeof js.consumers.get>>["consume"]>>
            | undefined;
          try {
            await bounded(ensure(), "the command stream");
            const consumer = await bounded(
              js.consumers.get(COMMANDS_STREAM, {
                filter_subjects: COMMANDS_SUBJECT,
                ...(position === 0
                  ? {}
                  : { deliver_policy: "by_start_sequence" as never, opt_start_seq: position + 1 }),
              }),
              "a consumer",
            );
            messages = await bounded(consumer.consume({ max_messages: 256, expires: 5_000 }), "its messages");
            const gone = new Promise<"gone">((resolve) => {
              abandon = () => resolve("gone");
            });
            progressAt = Date.now();
            const it = messages[Symbol.asyncIterator]();
            for (;;) {
              const next = await Promise.race([it.next(), gone]);
              if (next === "gone" || next.done === true || closed) break;
              const m = next.value;
              const seq = m.seq;
              if (seq <= position) continue;
              const parts = m.headers?.get("Lookout-Parts");
              if (seq > position + 1) {
                // Positions between are parts of large groups, or groups the consumer passed over
                // (seen once after a quorum returned, on every server at the same position): those
                // are read by position and applied first. Never skipped.
                const own = new Set(
                  (parts ?? "")
                    .split(",")
                    .filter((x) => x !== "")
                    .map(Number),
                );
                const missed = await bounded(missedGroups(position, seq, own), "the groups before a gap");
                for (const g of missed) {
                  try {
                    await deliver(g.seq, g.data);
                  } catch (e) {
                    stopped = `cannot apply the command group at position ${g.seq}: ${String(e)}`;
                    report();
                    return;
                  }
                  position = g.seq;
                }
                if (missed.length > 0) {
                  onState({
                    connected,
                    last,
                    notice: `the command log's consumer passed over ${missed.length === 1 ? "the group at position" : "the groups at positions"} ${missed.map((g) => g.seq).join(", ")}; they were read by position and applied in order`,
                  });
                }
              }
              const data =
                parts === undefined || parts === ""
                  ? m.data
                  : await bounded(assembleFrom(COMMANDS_STREAM, parts), "a group's parts");
              try {
                await deliver(seq, data);
              } catch (e) {
                stopped = `cannot apply the command group at position ${seq}: ${String(e)}`;
                report();
                return;
              }
              position = seq;
              progressAt = Date.now();
            }
          } catch {
            if (closed) return;
            connected = false;
            report();
            await sleep(1_000);
          } finally {
            abandon = undefined;
            void messages?.close().catch(() => undefined);
          }
        }
      };
      void run();
    },

    async close() {
      closed = true;
      await nc.close().catch(() => undefined);
    },
  };
}

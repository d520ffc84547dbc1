/**
 * The seam between the writer and a replicated command log (docs/replication.md). With one, the
 * writer's durable step is not its own SQLite commit but a publish to the log: a group of command
 * rows is acknowledged to its submitters once the log stored it, and every server (the publisher
 * too) applies the groups in the log's order as the log delivers them, so each server's SQLite log
 * is a materialisation of the replicated one, at the log's positions.
 *
 * The store knows nothing of the log's technology; src/zones/command-stream.ts implements it on a
 * NATS JetStream stream.
 */

import { LOG_FORMAT_VERSION, readFrame, UnreadableGroupError, writeFrame } from "./log-frame.js";

export { LOG_FORMAT_VERSION, UnreadableGroupError };

/** One group of the log: command rows and the configs their ApplyConfig rows name. */
export interface LogGroup {
  /** The server that published it (its messages' id prefix), and its number there. */
  readonly origin: string;
  readonly n: number;
  /** Command rows: the row's `at` and its body, the JSON text of a Command[] or of an ApplyConfig. */
  readonly rows: readonly { readonly at: number; readonly body: Uint8Array }[];
  /** Configs by digest, as the writer logs them (StateMachineFactory.encode). */
  readonly configs: readonly { readonly digest: string; readonly body: Uint8Array }[];
  /** The CUE source of a config an ApplyConfig row names, when the publisher had it. */
  readonly sources: readonly { readonly digest: string; readonly body: Uint8Array }[];
}

/** Why a publish failed: `unavailable` when the log could not store it in time (no quorum). */
export class LogUnavailableError extends Error {
  override readonly name = "LogUnavailableError";
}

/** A replicated log as the writer's thread sees it. */
export interface ReplicatedLog {
  /**
   * Publishes one group; resolves with its position once the log stored it (on a quorum of its
   * replicas), rejects with LogUnavailableError when it could not be stored in time. `id` is unique
   * to the group (the origin and its number): a publish repeated with the same id is stored once.
   */
  publish(id: string, group: Uint8Array): Promise<number>;
  /**
   * Delivers every group after position `after`, in the log's order, one at a time: the next is
   * delivered once the promise `deliver` returned has resolved. `onState` tells whether the log
   * is reachable and how far it reaches (`last`: the log's last position when it was last asked).
   */
  follow(
    after: number,
    deliver: (position: number, group: Uint8Array) => Promise<void> | void,
    onState: (state: ReplicaState) => void,
  ): void;
  /** The log's first position still kept (0: the log is empty). */
  firstPosition(): Promise<number>;
  /**
   * Publishes a snapshot (snapshotBytes) that covers the log up to `position`, then trims what no
   * kept snapshot needs: the log keeps every group after the older of the two newest snapshots.
   */
  publishSnapshot(position: number, snapshot: Uint8Array): Promise<void>;
  /** The newest snapshot published (undefined: none). */
  latestSnapshot(): Promise<Uint8Array | undefined>;
  close(): Promise<void>;
}

/** A snapshot as published for servers that join: see encodeSnapshot. */
export interface PublishedSnapshot {
  /** The command log position it covers. */
  readonly position: number;
  /** The last event it covers (a joining server's events go on from there). */
  readonly eventSeq: number;
  /** The config in force, by digest, with its text as the writer logs it. */
  readonly configDigest: string;
  readonly config: string;
  /** The writer's snapshot (engine, fold, projection) as it stores it. */
  readonly body: string;
}

const SNAPSHOT_MAGIC = 0x4c4b5331; // "LKS1"

/** A snapshot as bytes: an "LKS1" frame (log-frame.ts) whose parts are the config and the body. */
export function encodeSnapshot(s: PublishedSnapshot): Uint8Array {
  const config = encoder.encode(s.config);
  const body = encoder.encode(s.body);
  return writeFrame(
    SNAPSHOT_MAGIC,
    {
      position: s.position,
      eventSeq: s.eventSeq,
      configDigest: s.configDigest,
      config: config.length,
      body: body.length,
    },
    [config, body],
  );
}

export function decodeSnapshot(bytes: Uint8Array): PublishedSnapshot {
  const { header: h, at } = readFrame(bytes, SNAPSHOT_MAGIC, "snapshot", "not a Lookout snapshot");
  if (
    typeof h.position !== "number" ||
    typeof h.eventSeq !== "number" ||
    typeof h.configDigest !== "string" ||
    typeof h.config !== "number" ||
    typeof h.body !== "number" ||
    at + h.config + h.body !== bytes.length
  ) {
    throw new UnreadableGroupError("the snapshot's header does not match its bytes");
  }
  return {
    position: h.position,
    eventSeq: h.eventSeq,
    configDigest: h.configDigest,
    config: decoder.decode(bytes.subarray(at, at + h.config)),
    body: decoder.decode(bytes.subarray(at + h.config)),
  };
}

/** What a follower knows of the log. */
export interface ReplicaState {
  readonly connected: boolean;
  /** The log's last position as last seen (0: unknown). */
  readonly last: number;
  /** Why the follower stopped, when it did: it never skips what it cannot apply. */
  readonly error?: string;
  /**
   * Something the follower noticed and made good, for the server's log (once per state): e.g.
   * groups its consumer passed over, which it then read by position.
   */
  readonly notice?: string;
}

/** Makes the log in the writer's thread from the options the owner sent (structured-cloned). */
export type ReplicatedLogFactory = (options: unknown) => Promise<ReplicatedLog>;

const MAGIC = 0x4c4b4331; // "LKC1"
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A group as bytes: an "LKC1" frame (log-frame.ts) whose header names each part's length, then
 * the parts as they are (the bodies are JSON already; they are never escaped into the header).
 */
export function encodeGroup(g: LogGroup): Uint8Array {
  return writeFrame(
    MAGIC,
    {
      o: g.origin,
      n: g.n,
      rows: g.rows.map((r) => [r.at, r.body.length]),
      configs: g.configs.map((c) => [c.digest, c.body.length]),
      sources: g.sources.map((s) => [s.digest, s.body.length]),
    },
    [...g.rows, ...g.configs, ...g.sources].map((p) => p.body),
  );
}

/** Reads what encodeGroup wrote; the bodies are views into `bytes`. */
export function decodeGroup(bytes: Uint8Array): LogGroup {
  const frame = readFrame(bytes, MAGIC, "group", "not a Lookout command group");
  const h = frame.header;
  if (
    typeof h.o !== "string" ||
    typeof h.n !== "number" ||
    !Array.isArray(h.rows) ||
    !Array.isArray(h.configs) ||
    !Array.isArray(h.sources)
  ) {
    throw new UnreadableGroupError("the group's header lacks a field");
  }
  let at = frame.at;
  const take = (length: unknown): Uint8Array => {
    if (typeof length !== "number" || !Number.isInteger(length) || length < 0 || at + length > bytes.length) {
      throw new UnreadableGroupError("a part of the group is cut short");
    }
    const part = bytes.subarray(at, at + length);
    at += length;
    return part;
  };
  const pairs = (list: unknown[], what: string): [unknown, unknown][] =>
    list.map((p) => {
      if (!Array.isArray(p) || p.length !== 2) throw new UnreadableGroupError(`a malformed ${what} entry`);
      return p as [unknown, unknown];
    });
  const rows = pairs(h.rows, "row").map(([rowAt, length]) => {
    if (typeof rowAt !== "number") throw new UnreadableGroupError("a row without its time");
    return { at: rowAt, body: take(length) };
  });
  const named = (list: unknown[], what: string) =>
    pairs(list, what).map(([digest, length]) => {
      if (typeof digest !== "string") throw new UnreadableGroupError(`a ${what} without its digest`);
      return { digest, body: take(length) };
    });
  const configs = named(h.configs, "config");
  const sources = named(h.sources, "source");
  if (at !== bytes.length) throw new UnreadableGroupError("the group has bytes past its parts");
  return { origin: h.o, n: h.n, rows, configs, sources };
}

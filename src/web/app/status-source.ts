import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { useEffect } from "preact/hooks";
import type { ObjectStatus } from "../../api/gen/svc/v1/query_service_pb.js";
import type { State, StateType } from "../../api/gen/svc/v1/types_pb.js";
import { noteReadError } from "./access.js";
import { codeOf, messageOf, query } from "./api.js";
import { oldestNamed } from "./as-of.js";
import { switchedOffNames } from "./components/object-switches.js";
import { objectKey } from "./format.js";
import { createStore, type Store, useStore } from "./store.js";

/** One object's status, flattened to what the tables show (100,000 of these stay small). */
export interface Row {
  readonly key: string;
  readonly host: string;
  readonly service: string | undefined;
  readonly state: State;
  readonly stateType: StateType;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly output: string;
  readonly lastCheck: number;
  readonly lastChange: number;
  readonly acked: boolean;
  readonly inDowntime: boolean;
  readonly flapping: boolean;
  readonly checkType: string;
  /** The switches an operator turned off, named ("active checks, notifications"); "" when none. */
  readonly off: string;
  /** Lower-case host, service and output, for the search box. */
  readonly text: string;
}

/** What a source knows: every object its selector matched at the last complete read. */
export interface Snapshot {
  readonly rows: readonly Row[];
  /** total_size of the last page read: how many objects match. */
  readonly total: number;
  /** False while the first read is still paging (rows holds the part read so far). */
  readonly complete: boolean;
  readonly fetchedAt: number;
  /** How long the last complete read took (ms): the next one waits at least twice that. */
  readonly readMs: number;
  readonly error?: string;
  /** The moment asked for is outside what the log can answer (ListStatus `at`: out_of_range). */
  readonly outOfRange?: boolean;
  /** The oldest moment the server said it can answer, when it named one. */
  readonly oldest?: number;
}

/** What the hooks below need of a source: the live one or one of a past moment. */
interface Source {
  readonly store: Store<Snapshot>;
  acquire(): void;
  release(): void;
  refresh(): void;
}

/** The first page is small so the first paint comes early; the rest use the API's largest page. */
const FIRST_PAGE = 200;
const PAGE = 1000;
const MIN_INTERVAL_MS = 1000;
/** Above this many rows a source follows the history feed between full reads. */
const INCREMENTAL_ABOVE = 2000;
const HISTORY_POLL_MS = 2000;
/** A full read at least this often, and never more often than 20 times its own duration. */
const RESYNC_MS = 300_000;
/** More objects touched than this since the last look: read everything again instead. */
const MAX_PATCHED = 300;

function toRow(s: ObjectStatus): Row {
  return {
    key: objectKey(s.host, s.service),
    host: s.host,
    service: s.service,
    state: s.state,
    stateType: s.stateType,
    attempt: s.attempt,
    maxAttempts: s.maxAttempts,
    output: s.output,
    lastCheck: s.lastCheck === undefined ? 0 : timestampMs(s.lastCheck),
    lastChange: s.lastStateChange === undefined ? 0 : timestampMs(s.lastStateChange),
    acked: s.acknowledgement !== undefined,
    inDowntime: s.inDowntime,
    flapping: s.flapping,
    checkType: s.checkType,
    off: switchedOffNames(s),
    text: `${s.host} ${s.service ?? ""} ${s.output}`.toLowerCase(),
  };
}

/**
 * Keeps every object one selector matches, from ListStatus (server-side paging, 1,000 per call).
 * A small set (up to 2,000 objects) is read again after max(1 s, twice the read's duration). A
 * large one is read in full only every 5 minutes (or 20 read durations): in between it follows the
 * global history feed every 2 s (ListHistory) and re-reads, per host, only the objects whose events
 * it saw (ListStatus with host and the selector), so 100,000 rows are neither re-decoded nor
 * re-allocated every few seconds; a gap in the feed or more than 300 touched objects falls back to
 * a full read. The first read publishes each page as it arrives; a full re-read swaps in the whole
 * result at once. While the server is unreachable it retries every 2 s.
 */
class StatusSource implements Source {
  readonly store: Store<Snapshot> = createStore<Snapshot>({
    rows: [],
    total: 0,
    complete: false,
    fetchedAt: 0,
    readMs: 0,
  });
  #users = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  #again = false;
  #generation = 0;
  /** The newest history sequence taken into account; undefined: the next read is a full one. */
  #seen: bigint | undefined;
  #lastFull = 0;

  constructor(readonly selector: string) {}

  acquire(): void {
    if (this.#users++ === 0) this.#schedule(0);
  }

  release(): void {
    if (--this.#users === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#generation++;
    }
  }

  /** Reads again now (after a command), or as soon as the read in progress ends. */
  refresh(): void {
    if (this.#running) this.#again = true;
    else this.#schedule(0);
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    if (this.#users === 0) return;
    this.#timer = setTimeout(() => void this.#tick(), ms);
  }

  async #tick(): Promise<void> {
    const snap = this.store.get();
    const due = Date.now() - this.#lastFull > Math.max(RESYNC_MS, 20 * snap.readMs);
    if (this.#seen === undefined || due || !snap.complete || snap.rows.length <= INCREMENTAL_ABOVE) {
      return this.#read();
    }
    const generation = this.#generation;
    this.#running = true;
    try {
      const patched = await this.#follow(this.#seen, generation);
      if (generation !== this.#generation) return;
      if (!patched) return this.#read();
      this.#schedule(this.#again ? 0 : HISTORY_POLL_MS);
    } catch (e) {
      noteReadError(e);
      if (generation !== this.#generation) return;
      this.store.set({ ...this.store.get(), error: messageOf(e) });
      this.#schedule(2000);
    } finally {
      this.#running = false;
      this.#again = false;
    }
  }

  /** The newest sequence in the history feed (0 when empty). */
  async #newestSequence(): Promise<bigint> {
    const res = await query.listHistory({ pageSize: 1 });
    return res.entries[0]?.sequence ?? 0n;
  }

  /**
   * Applies what the history feed says changed since `seen`: false when that cannot be done
   * cheaply (a gap in the feed, too many objects) and a full read is needed.
   */
  async #follow(seen: bigint, generation: number): Promise<boolean> {
    const res = await query.listHistory({ pageSize: 1000 });
    const fresh = res.entries.filter((e) => e.sequence > seen);
    if (fresh.length === 0) return true;
    // Every entry of a full page is new: older ones may be missing, so read everything.
    if (fresh.length === res.entries.length && res.nextPageToken !== "") return false;
    const byHost = new Map<string, Set<string>>();
    for (const e of fresh) {
      const keys = byHost.get(e.host) ?? new Set<string>();
      byHost.set(e.host, keys);
      keys.add(objectKey(e.host, e.service));
    }
    let touched = 0;
    for (const keys of byHost.values()) touched += keys.size;
    if (touched > MAX_PATCHED) return false;
    const newest = fresh[0]?.sequence ?? seen;
    const updates = new Map<string, Row | undefined>();
    for (const [host, keys] of byHost) {
      const found = new Map<string, Row>();
      let token = "";
      do {
        const page = await query.listStatus({
          host,
          selector: this.selector,
          pageSize: PAGE,
          pageToken: token,
        });
        for (const s of page.statuses) found.set(objectKey(s.host, s.service), toRow(s));
        token = page.nextPageToken;
      } while (token !== "");
      for (const k of keys) updates.set(k, found.get(k));
    }
    if (generation !== this.#generation) return true;
    const snap = this.store.get();
    const rows: Row[] = [];
    for (const r of snap.rows) {
      if (!updates.has(r.key)) rows.push(r);
      else {
        const u = updates.get(r.key);
        updates.delete(r.key);
        if (u !== undefined) rows.push(u);
      }
    }
    for (const u of updates.values()) if (u !== undefined) rows.push(u);
    this.#seen = newest;
    this.store.set({ ...snap, rows, total: rows.length, fetchedAt: Date.now() });
    return true;
  }

  async #read(): Promise<void> {
    const generation = this.#generation;
    this.#running = true;
    const started = performance.now();
    const first = !this.store.get().complete && this.store.get().fetchedAt === 0;
    const rows: Row[] = [];
    let token = "";
    let total = 0;
    try {
      // Taken before the read: an event during the read is applied again afterwards (harmless).
      const seen = await this.#newestSequence();
      do {
        const page = await query.listStatus({
          selector: this.selector,
          pageSize: rows.length === 0 ? FIRST_PAGE : PAGE,
          pageToken: token,
        });
        if (generation !== this.#generation) return;
        for (const s of page.statuses) rows.push(toRow(s));
        token = page.nextPageToken;
        total = page.totalSize;
        if (first && token !== "") {
          this.store.set({ rows: rows.slice(), total, complete: false, fetchedAt: Date.now(), readMs: 0 });
        }
      } while (token !== "");
      const readMs = performance.now() - started;
      this.store.set({ rows, total, complete: true, fetchedAt: Date.now(), readMs });
      this.#seen = seen;
      this.#lastFull = Date.now();
      const pause =
        rows.length > INCREMENTAL_ABOVE
          ? HISTORY_POLL_MS
          : Math.max(MIN_INTERVAL_MS, 2 * readMs) * (document.hidden ? 5 : 1);
      this.#schedule(this.#again ? 0 : pause);
    } catch (e) {
      noteReadError(e);
      if (generation !== this.#generation) return;
      this.store.set({ ...this.store.get(), error: messageOf(e) });
      this.#schedule(2000);
    } finally {
      this.#running = false;
      this.#again = false;
    }
  }
}

/**
 * Every object one selector matched at a past moment (ListStatus with `at`, every page), read
 * once: the past does not change, so nothing is polled. An out_of_range refusal is kept with the
 * oldest moment it names; any other failure is retried every 2 s while watched.
 */
class PastSource implements Source {
  readonly store: Store<Snapshot> = createStore<Snapshot>({
    rows: [],
    total: 0,
    complete: false,
    fetchedAt: 0,
    readMs: 0,
  });
  #users = 0;
  #generation = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly selector: string,
    readonly at: number,
  ) {}

  acquire(): void {
    if (this.#users++ === 0 && !this.store.get().complete && this.store.get().outOfRange !== true) {
      void this.#read();
    }
  }

  release(): void {
    if (--this.#users === 0) {
      clearTimeout(this.#timer);
      this.#generation++;
    }
  }

  refresh(): void {}

  async #read(): Promise<void> {
    const generation = this.#generation;
    const started = performance.now();
    const rows: Row[] = [];
    let token = "";
    let total = 0;
    try {
      do {
        const page = await query.listStatus({
          selector: this.selector,
          pageSize: rows.length === 0 ? FIRST_PAGE : PAGE,
          pageToken: token,
          at: timestampFromMs(this.at),
        });
        if (generation !== this.#generation) return;
        for (const s of page.statuses) rows.push(toRow(s));
        token = page.nextPageToken;
        total = page.totalSize;
        if (token !== "") {
          this.store.set({ rows: rows.slice(), total, complete: false, fetchedAt: Date.now(), readMs: 0 });
        }
      } while (token !== "");
      this.store.set({
        rows,
        total,
        complete: true,
        fetchedAt: Date.now(),
        readMs: performance.now() - started,
      });
    } catch (e) {
      noteReadError(e);
      if (generation !== this.#generation) return;
      const message = messageOf(e);
      if (codeOf(e) === Code.OutOfRange) {
        const oldest = oldestNamed(message);
        this.store.set({
          ...this.store.get(),
          error: message,
          outOfRange: true,
          ...(oldest === undefined ? {} : { oldest }),
        });
        return;
      }
      this.store.set({ ...this.store.get(), error: message });
      this.#timer = setTimeout(() => {
        if (generation === this.#generation) void this.#read();
      }, 2000);
    }
  }
}

const sources = new Map<string, Source>();

function sourceFor(selector: string, at: number | undefined): Source {
  const key = at === undefined ? selector : `${selector}\u0000${at}`;
  let s = sources.get(key);
  if (s === undefined) {
    s = at === undefined ? new StatusSource(selector) : new PastSource(selector, at);
    sources.set(key, s);
    // Keep the fleet and the last few selectors' data for an instant redisplay.
    if (sources.size > 8) {
      for (const [k] of sources) {
        if (k !== "" && k !== key) {
          sources.delete(k);
          break;
        }
      }
    }
  }
  return s;
}

/**
 * Every object the selector matches ("" for the whole fleet): kept current while mounted, or, with
 * `at` (ms since the epoch), as it stood at that moment, read once.
 */
export function useStatus(selector: string, at?: number): Snapshot {
  const src = sourceFor(selector, at);
  useEffect(() => {
    src.acquire();
    return () => src.release();
  }, [src]);
  return useStore(src.store);
}

/** After a command: read every watched selector again at once. */
export function refreshAll(): void {
  for (const s of sources.values()) s.refresh();
}

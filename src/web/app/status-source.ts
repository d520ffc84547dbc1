import { timestampMs } from "@bufbuild/protobuf/wkt";
import { useEffect } from "preact/hooks";
import type { ObjectStatus } from "../../api/gen/svc/v1/query_service_pb.js";
import type { State, StateType } from "../../api/gen/svc/v1/types_pb.js";
import { noteReadError } from "./access.js";
import { messageOf, query } from "./api.js";
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
}

/** The first page is small so the first paint comes early; the rest use the API's largest page. */
const FIRST_PAGE = 300;
const PAGE = 1000;
const MIN_INTERVAL_MS = 1000;

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
    text: `${s.host} ${s.service ?? ""} ${s.output}`.toLowerCase(),
  };
}

/**
 * Polls ListStatus for one selector: pages through every match (server-side paging, 1,000 per
 * call), then waits max(1 s, twice the read's duration) and reads again, so 100,000 objects are
 * re-read every few seconds without hogging the server. The first read publishes each page as it
 * arrives; later reads swap in the complete result at once. While the server is unreachable it
 * retries every 2 s.
 */
class StatusSource {
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
    this.#timer = setTimeout(() => void this.#read(), ms);
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
      const pause = Math.max(MIN_INTERVAL_MS, 2 * readMs) * (document.hidden ? 5 : 1);
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

const sources = new Map<string, StatusSource>();

function sourceFor(selector: string): StatusSource {
  let s = sources.get(selector);
  if (s === undefined) {
    s = new StatusSource(selector);
    sources.set(selector, s);
    // Keep the fleet and the last few selectors' data for an instant redisplay.
    if (sources.size > 8) {
      for (const [k] of sources) {
        if (k !== "" && k !== selector) {
          sources.delete(k);
          break;
        }
      }
    }
  }
  return s;
}

/** Every object the selector matches ("" for the whole fleet), kept current while mounted. */
export function useStatus(selector: string): Snapshot {
  const src = sourceFor(selector);
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

/**
 * A client load for the replication tests and bench, and the ledger of what the API acknowledged.
 * Writers send ProcessCheckResults batches whose results flip each object between OK and CRITICAL
 * (with `max_attempts: 1` every result is a HARD state change, so each one leaves a history entry
 * carrying its output); a side writer adds comments, schedules fixed and flexible downtimes and
 * sets and removes acknowledgements. A call answered OK goes into the ledger; a call that failed
 * (server killed, no quorum) is retried, the same batch to the next running server, until it is
 * acknowledged or the load stops, and its results stay "uncertain" (they may or may not have
 * applied). `missingWrites` then lists every acknowledged write a server's state does not show.
 */
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Json, ReplicaState } from "./replica-compare.js";
import { apiOf, type Replica, readState, sleep } from "./replicas.js";

/** An object as the API names it. */
export interface ObjectName {
  readonly host: string;
  readonly service?: string;
}

/** `host!service`, or `host!` for a host: the key compareReplicas matches statuses by. */
export const keyOf = (o: ObjectName): string => `${o.host}!${o.service ?? ""}`;

/** One result sent for an object, and whether a server acknowledged it. */
interface Sent {
  readonly output: string;
  acked: boolean;
}

/** What the API acknowledged during a load (and what it did not). */
export interface Ledger {
  /** Per object key, every result sent, in order (one writer per object). */
  readonly results: Map<string, Sent[]>;
  /** Acknowledged AddComment calls: the id each returned. */
  readonly comments: { readonly id: string; readonly server: string; readonly text: string }[];
  /** Acknowledged ScheduleDowntime calls. */
  readonly downtimes: { readonly id: string; readonly server: string; readonly comment: string }[];
  /** Per object key, the comment of the acknowledgement that stands (null: removed), for objects whose every call was answered. */
  readonly acks: Map<string, string | null>;
  /** Objects whose acknowledgement call failed without an answer: either outcome is right. */
  readonly acksUncertain: Set<string>;
  /** Calls answered with a refusal, by code (a precondition a server's projection did not meet). */
  readonly refused: Map<string, number>;
  /** Calls that failed without an answer (retried when they are results). */
  failures: number;
  /** Acknowledged results. */
  ackedResults: number;
  /** Acknowledged AcknowledgeProblem and RemoveAcknowledgement calls. */
  ackCalls: number;
  /** The time of each acknowledged call (performance.now()), for rates. */
  readonly ackedAt: number[];
}

export interface WriteLoadOptions {
  /** The servers to write to, the preferred one first (a writer moves on when one fails). */
  readonly targets: () => readonly Replica[];
  /** The objects results are sent for; writer w takes those at index ≡ w (mod writers). */
  readonly objects: readonly ObjectName[];
  /** Result writers in parallel (default 2). */
  readonly writers?: number;
  /** Results per ProcessCheckResults call (default 25). */
  readonly batch?: number;
  /** Objects the side writer acknowledges (they must be in a problem state); none: no acknowledgements. */
  readonly ackObjects?: readonly ObjectName[];
  /** The object the side writer comments on and puts in downtime (default: the first of `objects`). */
  readonly sideObject?: ObjectName;
  /** Pause between side writes (default 150 ms; 0: no side writes). */
  readonly sideEveryMs?: number;
  /** Pause between result calls of one writer (default 0). */
  readonly pauseMs?: number;
  /** A prefix for outputs and comments, unique per load (default "w"). */
  readonly tag?: string;
  /** Per-call timeout (default 15 s). */
  readonly timeoutMs?: number;
  /** Each call to the next running target in turn (default: the first until it fails). */
  readonly rotate?: boolean;
}

export interface WriteLoad {
  readonly ledger: Ledger;
  /** Stops the writers after their call in flight; resolves with the ledger. */
  stop(): Promise<Ledger>;
}

function emptyLedger(): Ledger {
  return {
    results: new Map(),
    comments: [],
    downtimes: [],
    acks: new Map(),
    acksUncertain: new Set(),
    refused: new Map(),
    failures: 0,
    ackedResults: 0,
    ackCalls: 0,
    ackedAt: [],
  };
}

/** Whether the error is an answer (the server refused) rather than a failure to answer. */
function refusal(e: unknown): string | undefined {
  const c = ConnectError.from(e).code;
  return c === Code.InvalidArgument ||
    c === Code.FailedPrecondition ||
    c === Code.NotFound ||
    c === Code.AlreadyExists ||
    c === Code.PermissionDenied
    ? Code[c]
    : undefined;
}

/** Starts the load; it runs until `stop`. */
export function startWriteLoad(o: WriteLoadOptions): WriteLoad {
  const ledger = emptyLedger();
  const tag = o.tag ?? "w";
  const writers = o.writers ?? 2;
  const batchSize = o.batch ?? 25;
  const timeoutMs = o.timeoutMs ?? 15_000;
  let stopped = false;
  const counters = new Map<string, number>();
  /** A rotation over the running targets: the preferred one until it fails, then the next. */
  const picker = () => {
    let i = 0;
    return {
      current(): Replica | undefined {
        const ts = o.targets().filter((t) => t.running);
        if (o.rotate === true) i++;
        return ts.length === 0 ? undefined : ts[i % ts.length];
      },
      failed() {
        i++;
      },
    };
  };
  const refused = (e: unknown): boolean => {
    const r = refusal(e);
    if (r === undefined) return false;
    ledger.refused.set(r, (ledger.refused.get(r) ?? 0) + 1);
    return true;
  };

  const resultWriter = async (w: number): Promise<void> => {
    const mine = o.objects.filter((_, i) => i % writers === w);
    if (mine.length === 0) return;
    const pick = picker();
    let next = 0;
    while (!stopped) {
      const now = Date.now();
      const batch = [];
      const sent: Sent[] = [];
      for (let k = 0; k < Math.min(batchSize, mine.length); k++, next++) {
        const obj = mine[next % mine.length] as ObjectName;
        const key = keyOf(obj);
        const n = (counters.get(key) ?? 0) + 1;
        counters.set(key, n);
        const bad = n % 2 === 1;
        const output = `${bad ? "CRITICAL" : "OK"} - ${tag} ${key} #${n}`;
        const s: Sent = { output, acked: false };
        const list = ledger.results.get(key) ?? [];
        list.push(s);
        ledger.results.set(key, list);
        sent.push(s);
        batch.push({
          host: obj.host,
          ...(obj.service === undefined ? {} : { service: obj.service }),
          exitStatus: bad ? 2 : 0,
          output,
          checkedAt: timestampFromMs(now),
        });
      }
      // The same batch until a server acknowledges it or the load stops.
      while (!stopped) {
        const t = pick.current();
        if (t === undefined) {
          await sleep(100);
          continue;
        }
        try {
          await apiOf(t.url).command.processCheckResults({ results: batch }, { timeoutMs });
          for (const s of sent) s.acked = true;
          ledger.ackedResults += sent.length;
          ledger.ackedAt.push(performance.now());
          break;
        } catch (e) {
          if (refused(e)) break;
          ledger.failures++;
          pick.failed();
          await sleep(100);
        }
      }
      if (o.pauseMs !== undefined && o.pauseMs > 0) await sleep(o.pauseMs);
    }
  };

  const sideWriter = async (): Promise<void> => {
    const every = o.sideEveryMs ?? 150;
    if (every <= 0) return;
    const pick = picker();
    const side = o.sideObject ?? o.objects[0];
    if (side === undefined) return;
    const target = { kind: { case: "object" as const, value: side } };
    const acks = (o.ackObjects ?? []).map((a) => ({ obj: a, key: keyOf(a) }));
    let n = 0;
    while (!stopped) {
      await sleep(every);
      if (stopped) break;
      const t = pick.current();
      if (t === undefined) continue;
      const api = apiOf(t.url);
      n++;
      const kind = n % 4;
      const now = Date.now();
      const text = `${tag} side #${n} via ${t.name}`;
      // Acknowledgement calls go to objects whose every call was answered, in turn.
      const ack = acks.filter((a) => !ledger.acksUncertain.has(a.key))[n % Math.max(1, acks.length)];
      try {
        if (kind === 0) {
          const r = await api.command.addComment({ object: side, author: tag, comment: text }, { timeoutMs });
          ledger.comments.push({ id: r.id, server: t.name, text });
        } else if (kind === 1 || kind === 2) {
          const flexible = kind === 2;
          const r = await api.command.scheduleDowntime(
            {
              target,
              author: tag,
              comment: text,
              start: timestampFromMs(now + 3_600_000),
              end: timestampFromMs(now + 7_200_000),
              flexible,
              ...(flexible ? { duration: { seconds: 600n } } : {}),
            },
            { timeoutMs },
          );
          ledger.downtimes.push({ id: r.id, server: t.name, comment: text });
        } else if (ack === undefined) {
          continue;
        } else {
          const standing = ledger.acks.get(ack.key);
          const ackTarget = { kind: { case: "object" as const, value: ack.obj } };
          if (standing === undefined || standing === null) {
            await api.command.acknowledgeProblem(
              { target: ackTarget, sticky: true, author: tag, comment: text, notify: false },
              { timeoutMs },
            );
            ledger.acks.set(ack.key, text);
          } else {
            await api.command.removeAcknowledgement({ target: ackTarget }, { timeoutMs });
            ledger.acks.set(ack.key, null);
          }
          ledger.ackCalls++;
        }
        ledger.ackedAt.push(performance.now());
      } catch (e) {
        if (refused(e)) continue;
        ledger.failures++;
        if (kind === 3 && ack !== undefined) ledger.acksUncertain.add(ack.key);
        pick.failed();
      }
    }
  };

  const running = [...Array.from({ length: writers }, (_, w) => resultWriter(w)), sideWriter()];
  return {
    ledger,
    async stop() {
      stopped = true;
      await Promise.all(running);
      return ledger;
    },
  };
}

const str = (e: Json | undefined, k: string): string => {
  if (e === null || e === undefined || typeof e !== "object" || Array.isArray(e)) return "";
  const v = (e as { readonly [k: string]: Json })[k];
  return typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v);
};

/** What a server's state lacks of a ledger. */
export interface Missing {
  /** Acknowledged writes it does not show: results not in history, comments, downtimes, acknowledgements. */
  readonly lost: readonly string[];
  /** Objects whose status is not that of their last acknowledged result (or of one sent after it). */
  readonly stale: readonly string[];
}

/**
 * Every acknowledged write that `state` does not show, as `result h0!s1 "CRITICAL - …" not in
 * history` lines: each acknowledged result in its object's history; every acknowledged comment and
 * downtime by id; each acknowledgement as it last stood. And, apart, each object whose status
 * output is neither that of its last acknowledged result nor of one sent after it
 * (unacknowledged, so it may have applied).
 */
export function missingWrites(state: ReplicaState, ledger: Ledger): Missing {
  const lost: string[] = [];
  const stale: string[] = [];
  const history = new Set<string>();
  for (const h of state.history)
    history.add(`${str(h, "host")}!${str(h, "service")}\u0000${str(h, "output")}`);
  const status = new Map(state.status.map((s) => [`${str(s, "host")}!${str(s, "service")}`, s]));
  for (const [key, sent] of ledger.results) {
    for (const s of sent)
      if (s.acked && !history.has(`${key}\u0000${s.output}`))
        lost.push(`result ${key} "${s.output}" not in history`);
    const last = sent.map((s) => s.acked).lastIndexOf(true);
    if (last < 0) continue;
    const allowed = sent.slice(last).map((s) => s.output);
    const shown = str(status.get(key), "output");
    if (!allowed.includes(shown))
      stale.push(
        `status ${key} output "${shown}", want "${allowed[0]}"${allowed.length > 1 ? " or later" : ""}`,
      );
  }
  const comments = new Set(state.comments.map((c) => str(c, "id")));
  for (const c of ledger.comments)
    if (!comments.has(c.id)) lost.push(`comment ${c.id} ("${c.text}", acknowledged by ${c.server})`);
  const downtimes = new Set(state.downtimes.map((d) => str(d, "id")));
  for (const d of ledger.downtimes)
    if (!downtimes.has(d.id)) lost.push(`downtime ${d.id} ("${d.comment}", acknowledged by ${d.server})`);
  for (const [key, comment] of ledger.acks) {
    if (ledger.acksUncertain.has(key)) continue;
    const s = status.get(key);
    const ack =
      s !== null && typeof s === "object" && !Array.isArray(s)
        ? (s as Record<string, Json>).acknowledgement
        : undefined;
    const shown = ack === undefined || ack === null ? null : str(ack, "comment");
    if (shown !== comment)
      lost.push(`acknowledgement of ${key}: ${JSON.stringify(shown)}, want ${JSON.stringify(comment)}`);
  }
  return { lost, stale };
}

/**
 * A problem line for `server` when `m` is not empty: how many acknowledged writes it lacks of
 * how many, and the first few.
 */
export function describeMissing(server: string, m: Missing, ledger: Ledger): string | undefined {
  if (m.lost.length === 0 && m.stale.length === 0) return undefined;
  const first = [...m.lost, ...m.stale].slice(0, 3).join("; ");
  return `${server}: ${m.lost.length} of ${acknowledgedCount(ledger)} acknowledged writes lost, ${m.stale.length} statuses stale; first: ${first}`;
}

/** Acknowledged writes in the ledger (results, comments, downtimes, acknowledgement calls). */
export function acknowledgedCount(ledger: Ledger): number {
  return ledger.ackedResults + ledger.comments.length + ledger.downtimes.length + ledger.ackCalls;
}

/** One result to send: the object, its exit status and output. */
export type ResultSpec = readonly [
  host: string,
  service: string | undefined,
  exitStatus: number,
  output: string,
];

/** Sends `results` in one ProcessCheckResults call to `r`, checked now; throws unless acknowledged. */
export async function sendResults(
  r: Replica,
  results: readonly ResultSpec[],
  timeoutMs = 15_000,
): Promise<void> {
  const checkedAt = timestampFromMs(Date.now());
  await apiOf(r.url).command.processCheckResults(
    {
      results: results.map(([host, service, exitStatus, output]) => ({
        host,
        ...(service === undefined ? {} : { service }),
        exitStatus,
        output,
        checkedAt,
      })),
    },
    { timeoutMs },
  );
}

/**
 * Reads `r`'s state until it shows every write in `ledger` (an acknowledged write is stored, not
 * yet applied: it shows a moment later) or `timeoutMs` (default 10 s) passes; answers what it still
 * lacked at the last read.
 */
export async function settledWrites(r: Replica, ledger: Ledger, timeoutMs = 30_000): Promise<Missing> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let m: Missing;
    try {
      m = missingWrites(await readState(r.url), ledger);
    } catch (e) {
      m = { lost: [`${r.name} did not answer: ${String(e)}`], stale: [] };
    }
    if ((m.lost.length === 0 && m.stale.length === 0) || Date.now() > deadline) return m;
    await sleep(250);
  }
}

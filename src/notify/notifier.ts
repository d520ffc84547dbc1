import type { ConsumerState, LogConsumer } from "../consumers/index.js";
import type { Clock, TimerHandle } from "../model/clock.js";
import type { RecordEventsCommand } from "../model/commands.js";
import type { Config, ContactType, Labels } from "../model/config.js";
import type { LookoutEvent, RecordedEvent } from "../model/events.js";
import type { Logger } from "../model/logger.js";
import { effectiveLabels } from "../model/selector.js";
import type { LoggedEvent } from "../store/index.js";
import type { NotifierMetrics } from "./metrics.js";
import type { NotifyZone } from "./period.js";
import { type Preview, type PreviewQuery, previewNotifications } from "./preview.js";
import type { Notification, Sender, SendOutcome } from "./sender.js";
import { createTracker, type Intent, type SendIntent, type TrackedObject, type Tracker } from "./tracker.js";

/** The consumer's name: its position and state live under it in consumers.db. */
export const NOTIFIER_NAME = "notifier";

/** A send not yet delivered, as persisted under `s/<id>`. */
interface PendingSend {
  readonly id: string;
  readonly contact: string;
  /** Replaced (with a higher `replaces`) when this send supersedes older ones. */
  n: Notification;
  /** PROBLEM, STATUS_CHANGE, RECOVERY: the problem's opening sequence number (see #supersede). */
  readonly problem?: number;
  /** Attempts made so far. */
  attempt: number;
  /** Not before this time (ms since the epoch): a retry's backoff. */
  notBefore: number;
}

/** One contact's queue: its own order, concurrency and backoff. */
interface ContactQueue {
  readonly name: string;
  /** FIFO from `head` (shift on a 100,000-item array would be quadratic). */
  items: PendingSend[];
  head: number;
  inFlight: number;
  /** Consecutive retryable failures (the backoff's exponent). */
  failures: number;
  backoffUntil: number;
  timer: TimerHandle | undefined;
}

export interface NotifierOptions {
  /** Where the notifier records its decisions (RecordEvents). */
  readonly submit: (commands: RecordEventsCommand[]) => Promise<unknown>;
  readonly state: ConsumerState;
  readonly config: Config;
  readonly senders: Readonly<Record<ContactType, Sender>>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly zone: NotifyZone;
  /** A send is aborted (and retried) after this long; default 10 s. */
  readonly sendTimeoutMs?: number;
  /** Sends in flight per contact; default 32. */
  readonly concurrency?: number;
  /** First retry delay and its cap; default 1 s and 30 s. */
  readonly backoffBaseMs?: number;
  readonly backoffCapMs?: number;
  readonly metrics?: NotifierMetrics;
  /**
   * Sends queued in memory for contacts that are delivering (not backing off) above which the
   * notifier stops reading the log until they drain to half; default 10,000. Bounds memory in a
   * burst; a contact that is down never holds the others (docs/notifications.md, "Throughput and
   * memory").
   */
  readonly maxQueued?: number;
  /**
   * Starts paused (a replica that does not lead): the tracker is loaded for reads, but no pending
   * send is restored or sent until the consumer host resumes it (`resume`).
   */
  readonly paused?: boolean;
}

const OBJ = "o/";
const SEND = "s/";

/**
 * Labels of an object for the notification: a service's host's labels overlaid by its own, as
 * ListStatus and selectors see them (a receiver that routes on a host's `env` sees it on services).
 */
function labelsOf(config: Config, host: string, service: string | undefined): Labels {
  const h = config.hosts.get(host);
  if (h === undefined) return {};
  return effectiveLabels(h, service === undefined ? undefined : h.services.get(service));
}

/**
 * The notifier (docs/notifications.md): a log consumer that turns committed events into
 * notifications. It decides with the pure tracker, records every decision in the log (sent,
 * suppressed with a reason, failed with the attempt), and keeps its tracker state and every pending
 * send in consumers.db, written with its position in one transaction, so a restart neither loses
 * nor repeats a decision; a send itself is at least once, with a stable id that receivers use to
 * drop repeats. Each contact has its own queue and backoff: a dead contact never delays a live one.
 */
export class Notifier implements LogConsumer {
  readonly name = NOTIFIER_NAME;
  readonly #o: NotifierOptions;
  #config: Config;
  #tracker: Tracker;
  readonly #queues = new Map<string, ContactQueue>();
  readonly #stop = new AbortController();
  #records: RecordedEvent[] = [];
  #entries: { key: string; value: string | null }[] = [];
  #flushing: Promise<void> | undefined;
  #flushTimer: TimerHandle | undefined;
  readonly #inFlight = new Set<Promise<void>>();
  /** The sends in flight, aborted by stop(). */
  readonly #sending = new Set<AbortController>();
  #roomWaiter: (() => void) | undefined;
  #pending = 0;
  #active: boolean;
  /** Paused by the consumer host (this server does not lead): nothing is sent. */
  #paused: boolean;

  constructor(o: NotifierOptions) {
    this.#o = o;
    this.#config = o.config;
    this.#active = hasPolicy(o.config);
    this.#paused = o.paused ?? false;
    this.#tracker = createTracker(o.config, o.zone);
    this.#restore();
  }

  /** Loads the tracker and (unless paused) the pending sends from the state. */
  #restore(): void {
    const o = this.#o;
    for (const { key, value } of o.state.list(NOTIFIER_NAME, OBJ)) {
      this.#tracker.load(key.slice(OBJ.length), JSON.parse(value) as TrackedObject);
    }
    if (this.#paused) return;
    const restored = o.state.list(NOTIFIER_NAME, SEND).map((e) => JSON.parse(e.value) as PendingSend);
    restored.sort((a, b) => a.n.at - b.n.at || (a.id < b.id ? -1 : 1));
    const superseded: RecordedEvent[] = [];
    const entries: { key: string; value: string | null }[] = [];
    for (const p of restored) {
      if (this.#supersede(p, superseded, entries))
        entries.push({ key: SEND + p.id, value: JSON.stringify(p) });
      this.#enqueue(p);
    }
    if (entries.length > 0) {
      // Recorded and applied with the first flush; a crash before it collapses them again.
      this.#records.push(...superseded);
      this.#entries.push(...entries);
      this.#flushTimer = o.clock.setTimer(20, () => {
        this.#flushTimer = undefined;
        void this.#flush();
      });
    }
    if (restored.length > 0) o.logger.info("pending notifications restored", { count: restored.length });
  }

  /** Sends not yet delivered (queued or in flight). */
  get pending(): number {
    return this.#pending;
  }

  /** The config the notifier decides with. */
  get config(): Config {
    return this.#config;
  }

  /**
   * False while no object has a notification policy: the host then reads nothing for the notifier
   * and its position follows the end of the log (docs/notifications.md, "No policy, no reading").
   */
  active(): boolean {
    return this.#active;
  }

  async handle(batch: readonly LoggedEvent[], signal?: AbortSignal): Promise<number> {
    await this.#room(signal);
    // Stopped while waiting for room: nothing of this batch is decided (it is offered again).
    if (this.#stop.signal.aborted || signal?.aborted === true) return (batch[0]?.seq ?? 1) - 1;
    const intents: Intent[] = [];
    for (const le of batch) {
      if (isOwn(le.event)) continue;
      intents.push(...this.#tracker.observe(le));
    }
    // Timers run here too: under steady load the host may never call idle().
    intents.push(...this.#tracker.due(this.#o.clock.now()));
    const last = batch[batch.length - 1]?.seq;
    await this.#commit(intents, last);
    return last ?? 0;
  }

  async idle(): Promise<void> {
    if (this.#paused) return;
    const intents = this.#tracker.due(this.#o.clock.now());
    if (intents.length > 0) await this.#commit(intents, undefined);
  }

  /** Reload: new policies apply to open problems; a removed contact's pending sends are dropped. */
  async applyConfig(config: Config): Promise<void> {
    this.#config = config;
    this.#active = hasPolicy(config);
    // The leader applies it; resuming rebuilds the tracker with this config.
    if (this.#paused) return;
    const intents = this.#tracker.applyConfig(config);
    const dropped: RecordedEvent[] = [];
    const entries: { key: string; value: string | null }[] = [];
    for (const [name, q] of this.#queues) {
      if (config.contacts.has(name)) continue;
      for (const p of q.items.slice(q.head)) {
        dropped.push(this.#suppressedSend(p, "contact_removed"));
        entries.push({ key: SEND + p.id, value: null });
        this.#pending--;
      }
      q.items = [];
      q.head = 0;
      q.timer?.cancel();
      if (q.inFlight === 0) this.#queues.delete(name);
    }
    for (const [key, o] of this.#tracker.takeDirty()) {
      entries.push({ key: OBJ + key, value: o === undefined ? null : JSON.stringify(o) });
    }
    this.#o.state.put(NOTIFIER_NAME, entries);
    if (dropped.length > 0) {
      this.#o.logger.info("pending notifications dropped: contact removed", { count: dropped.length });
      await this.#record(dropped);
    }
    if (intents.length > 0) await this.#commit(intents, undefined);
    this.#o.metrics?.setPending(this.#pending);
  }

  /** Who would be told (docs/notifications.md, "Routing preview"), from the tracker's own state. */
  preview(q: PreviewQuery): Preview[] {
    return previewNotifications(this.#tracker, q);
  }

  /**
   * This server stops leading (the consumer host pauses): sends in flight are aborted and stay
   * pending in the state (the new leader sends them, under the same ids), the outbox is flushed, and
   * nothing more is sent until `resume`.
   */
  async pause(): Promise<void> {
    if (this.#paused) return;
    this.#paused = true;
    for (const ac of this.#sending) ac.abort(new Error("notifier paused"));
    this.#wakeRoom();
    for (const q of this.#queues.values()) q.timer?.cancel();
    await Promise.allSettled([...this.#inFlight]);
    this.#flushTimer?.cancel();
    this.#flushTimer = undefined;
    await this.#flush();
    this.#queues.clear();
    this.#pending = 0;
    this.#o.metrics?.setPending(0);
    this.#o.logger.info("notifier paused: this server does not lead");
  }

  /** This server leads again: the tracker and the pending sends are reloaded from the state. */
  resume(): void {
    if (!this.#paused || this.#stop.signal.aborted) return;
    this.#paused = false;
    for (const q of this.#queues.values()) q.timer?.cancel();
    this.#queues.clear();
    this.#pending = 0;
    this.#tracker = createTracker(this.#config, this.#o.zone);
    this.#restore();
    this.#o.metrics?.setPending(this.#pending);
  }

  /** Stops sending: in-flight sends are aborted (and stay pending), the outbox is flushed. */
  async stop(): Promise<void> {
    this.#stop.abort(new Error("notifier stopping"));
    for (const ac of this.#sending) ac.abort(this.#stop.signal.reason);
    this.#wakeRoom();
    for (const q of this.#queues.values()) q.timer?.cancel();
    this.#flushTimer?.cancel();
    await Promise.allSettled([...this.#inFlight]);
    await this.#flush();
    for (const s of Object.values(this.#o.senders)) s.close?.();
  }

  /** Records decisions, persists state and new sends (with the position), then queues the sends. */
  async #commit(intents: readonly Intent[], position: number | undefined): Promise<void> {
    const records: RecordedEvent[] = [];
    const sends: PendingSend[] = [];
    const entries: { key: string; value: string | null }[] = [];
    for (const i of intents) {
      const [host, service] = splitKey(i.key);
      if (i.type === "suppressed") {
        records.push({
          type: "NotificationSuppressed",
          at: i.at,
          key: i.key,
          host,
          ...(service === undefined ? {} : { service }),
          kind: i.kind,
          policy: i.policy,
          level: i.level,
          reason: i.reason,
          ...(i.until === undefined ? {} : { until: i.until }),
        });
        this.#o.metrics?.notification("none", i.kind, "suppressed");
        continue;
      }
      const p = this.#pendingOf(i, host, service);
      this.#supersede(p, records, entries);
      sends.push(p);
      entries.push({ key: SEND + p.id, value: JSON.stringify(p) });
    }
    for (const [key, o] of this.#tracker.takeDirty()) {
      entries.push({ key: OBJ + key, value: o === undefined ? null : JSON.stringify(o) });
    }
    // Decisions first: a crash before the put repeats them (same ids), never loses them.
    if (records.length > 0) await this.#record(records);
    // Nothing to persist: the host stores the position itself once handle resolves (one transaction
    // per batch, not two; most batches under load are the notifier's own records).
    if (entries.length > 0) this.#o.state.put(NOTIFIER_NAME, entries, position);
    for (const p of sends) this.#enqueue(p);
    this.#o.metrics?.setPending(this.#pending);
  }

  /**
   * Appends records to the log, retrying (1 s apart) until the log takes them or the notifier
   * stops: the tracker has already moved on, so a batch must not fail and be offered again.
   */
  async #record(events: RecordedEvent[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#o.submit([{ type: "RecordEvents", at: this.#o.clock.now(), events }]);
        return;
      } catch (e) {
        if (this.#stop.signal.aborted) return;
        if (attempt === 1 || attempt % 30 === 0) {
          this.#o.logger.error("cannot record notification events; retrying", {
            error: (e as Error).message,
            count: events.length,
            attempt,
          });
        }
        await new Promise<void>((resolve) => {
          const t = this.#o.clock.setTimer(1000, resolve);
          this.#stop.signal.addEventListener(
            "abort",
            () => {
              t.cancel();
              resolve();
            },
            { once: true },
          );
        });
      }
    }
  }

  #pendingOf(i: SendIntent, host: string, service: string | undefined): PendingSend {
    const n: Notification = {
      id: i.id,
      kind: i.kind,
      key: i.key,
      host,
      ...(service === undefined ? {} : { service }),
      state: i.state,
      output: i.output,
      level: i.level,
      policy: i.policy,
      number: i.number,
      at: i.at,
      labels: labelsOf(this.#config, host, service),
      ...(i.author === undefined ? {} : { author: i.author }),
      ...(i.comment === undefined ? {} : { comment: i.comment }),
    };
    return {
      id: i.id,
      contact: i.contact,
      n,
      ...(i.problem === undefined ? {} : { problem: i.problem }),
      attempt: 0,
      notBefore: 0,
    };
  }

  /**
   * A contact that comes back gets the current picture (docs/notifications.md, "A contact that
   * comes back"): the sends of the same problem to the same contact still queued and undeliverable
   * (tried and failed, or their contact failing) are stale once `p` is due. They are dropped
   * (recorded as suppressed, reason superseded) and `p` carries how many it replaces. A send in
   * flight is left alone: it may be delivered (a retry of it finds `p` then, see #deliver). True
   * when `p` replaced any.
   */
  #supersede(
    p: PendingSend,
    records: RecordedEvent[],
    entries: { key: string; value: string | null }[],
  ): boolean {
    if (p.problem === undefined) return false;
    const q = this.#queues.get(p.contact);
    if (q === undefined) return false;
    let replaced = 0;
    let kept = q.head;
    for (let i = q.head; i < q.items.length; i++) {
      const old = q.items[i] as PendingSend;
      if (
        old.problem === p.problem &&
        old.n.key === p.n.key &&
        old.id !== p.id &&
        !newerThan(old.n, p.n) &&
        (old.attempt > 0 || q.failures > 0)
      ) {
        replaced += 1 + (old.n.replaces ?? 0);
        records.push(this.#suppressedSend(old, "superseded"));
        entries.push({ key: SEND + old.id, value: null });
        this.#pending--;
        this.#o.metrics?.notification(
          this.#config.contacts.get(p.contact)?.type ?? "none",
          old.n.kind,
          "suppressed",
        );
        continue;
      }
      q.items[kept++] = old;
    }
    q.items.length = kept;
    if (replaced === 0) return false;
    p.n = { ...p.n, replaces: (p.n.replaces ?? 0) + replaced };
    return true;
  }

  /** A newer queued send of the same problem to the same contact, which a failed retry folds into. */
  #newerOf(q: ContactQueue, p: PendingSend): PendingSend | undefined {
    if (p.problem === undefined) return undefined;
    for (let i = q.head; i < q.items.length; i++) {
      const o = q.items[i] as PendingSend;
      if (o.problem === p.problem && o.n.key === p.n.key && o.id !== p.id && newerThan(o.n, p.n)) return o;
    }
    return undefined;
  }

  #enqueue(p: PendingSend): void {
    // Paused: the send is in the state already; the leader (or this server, resumed) sends it.
    if (this.#paused) return;
    let q = this.#queues.get(p.contact);
    if (q === undefined) {
      q = {
        name: p.contact,
        items: [],
        head: 0,
        inFlight: 0,
        failures: 0,
        backoffUntil: 0,
        timer: undefined,
      };
      this.#queues.set(p.contact, q);
    }
    q.items.push(p);
    this.#pending++;
    this.#pump(q);
  }

  /**
   * Sends queued or in flight for contacts that are delivering: not backing off, and whose last
   * send did not fail (a contact that hangs or refuses never holds the reading back).
   */
  #queuedLive(): number {
    const now = this.#o.clock.now();
    let n = 0;
    for (const q of this.#queues.values()) {
      if (q.failures === 0 && q.backoffUntil <= now) n += q.items.length - q.head + q.inFlight;
    }
    return n;
  }

  /** Waits while the live contacts' queues are above `maxQueued`, until they drain to half. */
  async #room(signal: AbortSignal | undefined): Promise<void> {
    const high = this.#o.maxQueued ?? 10_000;
    if (this.#queuedLive() <= high) return;
    const onAbort = () => this.#wakeRoom();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      while (
        !this.#stop.signal.aborted &&
        !this.#paused &&
        signal?.aborted !== true &&
        this.#queuedLive() > high / 2
      ) {
        await new Promise<void>((resolve) => {
          this.#roomWaiter = resolve;
        });
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Wakes #room: a send finished or a contact started backing off. */
  #wakeRoom(): void {
    const w = this.#roomWaiter;
    this.#roomWaiter = undefined;
    w?.();
  }

  #pump(q: ContactQueue): void {
    if (this.#stop.signal.aborted || this.#paused) return;
    const limit = this.#o.concurrency ?? 32;
    const now = this.#o.clock.now();
    while (q.inFlight < limit && q.head < q.items.length) {
      const head = q.items[q.head] as PendingSend;
      const wait = Math.max(q.backoffUntil, head.notBefore) - now;
      if (wait > 0) {
        if (q.timer === undefined) {
          q.timer = this.#o.clock.setTimer(wait, () => {
            q.timer = undefined;
            this.#pump(q);
          });
        }
        return;
      }
      q.items[q.head++] = undefined as unknown as PendingSend;
      if (q.head > 1024 && q.head * 2 > q.items.length) {
        q.items = q.items.slice(q.head);
        q.head = 0;
      }
      q.inFlight++;
      const run = this.#deliver(q, head).finally(() => {
        this.#inFlight.delete(run);
        q.inFlight--;
        this.#pump(q);
        this.#wakeRoom();
      });
      this.#inFlight.add(run);
    }
  }

  async #deliver(q: ContactQueue, p: PendingSend): Promise<void> {
    const contact = this.#config.contacts.get(p.contact);
    if (contact === undefined) {
      this.#pending--;
      this.#queue(this.#suppressedSend(p, "contact_removed"), { key: SEND + p.id, value: null });
      return;
    }
    const sender = this.#o.senders[contact.type];
    p.attempt++;
    const started = performance.now();
    // One controller per send, aborted by its timeout or by stop(): AbortSignal.any over the
    // notifier's long-lived stop signal and AbortSignal.timeout cost a composite signal, a timer and
    // a listener per send, which showed in the burst's profile and heap.
    const ac = new AbortController();
    this.#sending.add(ac);
    const timeout = setTimeout(
      () => ac.abort(new DOMException("send timed out", "TimeoutError")),
      this.#o.sendTimeoutMs ?? 10_000,
    );
    let outcome: SendOutcome;
    try {
      outcome = await sender.send(p.n, contact, this.#config, ac.signal);
    } catch (e) {
      // A sender must not throw; if one does, it is a bug and the send is retried.
      outcome = { ok: false, retryable: true, error: `${contact.type}: internal error` };
      this.#o.logger.error("sender threw", { contact: contact.name, type: contact.type, error: String(e) });
    } finally {
      clearTimeout(timeout);
      this.#sending.delete(ac);
    }
    if (this.#stop.signal.aborted || this.#paused) {
      // Stopping (or no longer leading): the send stays pending (durably) and is retried after the
      // restart (or by the leader).
      return;
    }
    const now = this.#o.clock.now();
    this.#o.metrics?.latency(contact.type, (performance.now() - started) / 1000);
    const [host, service] = splitKey(p.n.key);
    const base = {
      at: now,
      key: p.n.key,
      host,
      ...(service === undefined ? {} : { service }),
      kind: p.n.kind,
      policy: p.n.policy,
      level: p.n.level,
      contact: p.contact,
      id: p.id,
      attempt: p.attempt,
    };
    if (outcome.ok) {
      q.failures = 0;
      this.#pending--;
      this.#o.metrics?.notification(contact.type, p.n.kind, "sent");
      this.#o.metrics?.delivered(contact.type, (now - p.n.at) / 1000);
      this.#queue({ type: "NotificationSent", ...base }, { key: SEND + p.id, value: null });
      return;
    }
    this.#o.metrics?.notification(contact.type, p.n.kind, outcome.retryable ? "retry" : "failed");
    if (!outcome.retryable) {
      this.#pending--;
      this.#o.logger.warn("notification failed", {
        contact: p.contact,
        id: p.id,
        attempt: p.attempt,
        error: outcome.error,
      });
      this.#queue(
        { type: "NotificationFailed", ...base, error: outcome.error, retryable: false },
        { key: SEND + p.id, value: null },
      );
      return;
    }
    // Retryable: this contact backs off (capped exponential, with jitter); others carry on.
    if (now >= q.backoffUntil) q.failures++;
    const baseMs = this.#o.backoffBaseMs ?? 1000;
    const cap = this.#o.backoffCapMs ?? 30_000;
    const exp = Math.min(cap, baseMs * 2 ** Math.min(q.failures - 1, 20));
    const delay = outcome.retryAfterMs ?? exp / 2 + Math.random() * (exp / 2);
    q.backoffUntil = Math.max(q.backoffUntil, now + delay);
    const newer = this.#newerOf(q, p);
    if (newer !== undefined) {
      // Made stale while it was in flight: the newer send carries it (#supersede).
      this.#pending--;
      newer.n = { ...newer.n, replaces: (newer.n.replaces ?? 0) + 1 + (p.n.replaces ?? 0) };
      this.#queue(
        { type: "NotificationFailed", ...base, error: outcome.error, retryable: true },
        { key: SEND + newer.id, value: JSON.stringify(newer) },
      );
      this.#queue(this.#suppressedSend(p, "superseded"), { key: SEND + p.id, value: null });
      return;
    }
    // The newest of its problem for this contact: older ones queued meanwhile are stale now.
    const staleRecords: RecordedEvent[] = [];
    const staleEntries: { key: string; value: string | null }[] = [];
    this.#supersede(p, staleRecords, staleEntries);
    p.notBefore = now + delay;
    if (q.head > 0) q.items[--q.head] = p;
    else q.items.unshift(p);
    // #supersede adds one record and one entry per stale send, in the same order.
    for (let i = 0; i < staleRecords.length; i++) {
      this.#queue(staleRecords[i] as RecordedEvent, staleEntries[i] as { key: string; value: string | null });
    }
    if (q.failures <= 3 || q.failures % 10 === 0) {
      this.#o.logger.warn("notification failed, will retry", {
        contact: p.contact,
        id: p.id,
        attempt: p.attempt,
        error: outcome.error,
        retryInMs: Math.round(delay),
      });
    }
    this.#queue(
      { type: "NotificationFailed", ...base, error: outcome.error, retryable: true, retryAt: p.notBefore },
      { key: SEND + p.id, value: JSON.stringify(p) },
    );
  }

  #suppressedSend(p: PendingSend, reason: "contact_removed" | "superseded"): RecordedEvent {
    const [host, service] = splitKey(p.n.key);
    return {
      type: "NotificationSuppressed",
      at: this.#o.clock.now(),
      key: p.n.key,
      host,
      ...(service === undefined ? {} : { service }),
      kind: p.n.kind,
      policy: p.n.policy,
      level: p.n.level,
      reason,
      contact: p.contact,
      id: p.id,
    };
  }

  /** Adds a record and a state change to the outbox, flushed together shortly. */
  #queue(record: RecordedEvent, entry: { key: string; value: string | null }): void {
    this.#records.push(record);
    this.#entries.push(entry);
    this.#o.metrics?.setPending(this.#pending);
    if (this.#records.length >= 2000) void this.#flush();
    else if (this.#flushTimer === undefined) {
      this.#flushTimer = this.#o.clock.setTimer(20, () => {
        this.#flushTimer = undefined;
        void this.#flush();
      });
    }
  }

  /** Records the outbox's events, then applies its state changes (a crash between repeats a send). */
  async #flush(): Promise<void> {
    while (this.#flushing !== undefined) await this.#flushing;
    if (this.#records.length === 0 && this.#entries.length === 0) return;
    const records = this.#records;
    const entries = this.#entries;
    this.#records = [];
    this.#entries = [];
    this.#flushing = (async () => {
      if (records.length > 0) await this.#record(records);
      this.#o.state.put(NOTIFIER_NAME, entries);
    })();
    try {
      await this.#flushing;
    } finally {
      this.#flushing = undefined;
    }
  }
}

/**
 * Of two notifications of one problem, whether `a` was decided after `b`: by decision time, then
 * RECOVERY after the problem's notifications, then by the problem's notification number.
 */
function newerThan(a: Notification, b: Notification): boolean {
  if (a.at !== b.at) return a.at > b.at;
  const rank = (n: Notification) => (n.kind === "RECOVERY" ? Number.POSITIVE_INFINITY : n.number);
  return rank(a) > rank(b);
}

/** Whether any host or service names a notification policy that exists. */
export function hasPolicy(config: Config): boolean {
  if (config.notifications.size === 0) return false;
  for (const h of config.hosts.values()) {
    if (h.notification !== "" && config.notifications.has(h.notification)) return true;
    for (const s of h.services.values()) {
      if (s.notification !== "" && config.notifications.has(s.notification)) return true;
    }
  }
  return false;
}

/** The notifier's own records (and the sinks'): it never decides on them. */
function isOwn(e: LookoutEvent): boolean {
  switch (e.type) {
    case "NotificationSent":
    case "NotificationFailed":
    case "NotificationSuppressed":
    case "SinkFlushed":
    case "SinkFailed":
      return true;
    default:
      return false;
  }
}

function splitKey(key: string): [string, string | undefined] {
  const i = key.indexOf("!");
  return i < 0 ? [key, undefined] : [key.slice(0, i), key.slice(i + 1)];
}

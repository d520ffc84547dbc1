import type { FleetSpec } from "../fleet.js";
import type { Daemon } from "../procs.js";

/** The systems compared. */
export type PeerName = "lookout" | "icinga2" | "nagios4";

/** One system under test: how to validate a fleet, and how to run it. */
export interface Peer {
  readonly name: PeerName;
  /** The version it reports of itself. */
  version(): string;
  /** Writes the fleet's configuration into `dir`; the command that validates it. */
  validate(dir: string, fleet: FleetSpec): { cmd: string; args: string[] };
  /** Writes the configuration, starts the daemon in the foreground and resolves once it serves. */
  start(dir: string, fleet: FleetSpec): Promise<Running>;
  /**
   * Rewrites the running fleet's configuration with one more service, `new` on the first host,
   * whose check runs `plugin` every 10 s (the reload workload). The daemon is not told.
   */
  addService(dir: string, fleet: FleetSpec, plugin: string): void;
}

/** A started daemon. */
export interface Running {
  readonly daemon: Daemon;
  /** Asks the daemon to reload its configuration (SIGHUP for all three). */
  reload(): void;
  /**
   * Active service checks: Lookout's counter, or the peer's own count of the last minute. Call
   * `mark()` at the start of a window of at least 60 s and `checksSince()` at its end.
   */
  mark(): Promise<void>;
  checksSince(): Promise<number>;
  /** Scheduling lateness as the system reports it (seconds). */
  latency(): Promise<{ p99?: number; avg?: number; max?: number }>;
  /**
   * Active services whose last check is older than `olderThanS` seconds (or that never ran), by
   * the system's own status: the backlog a scheduler that queues overdue checks builds.
   */
  overdue(olderThanS: number): Promise<number>;
  /**
   * Check slots the scheduler skipped since `mark()` (Lookout skips a slot it cannot run in time);
   * undefined for a system that queues overdue checks instead (Icinga 2, Nagios 4).
   */
  skippedSince?(): Promise<number>;
  /**
   * Passive results accepted in the last window (between mark and now), as the system counts them;
   * undefined when the sender's own count of answered requests is the figure.
   */
  passiveSince?(): Promise<number | undefined>;
  /**
   * Nagios: its external command file, and how many passive results it has processed since it
   * started, by its own count (Lookout's command file is measured by bench/command-file.ts).
   */
  readonly commandFile?: { readonly path: string; processed(): number };
}

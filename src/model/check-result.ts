/** One perfdata point, as Nagios plugins print it: `'label'=value[uom];[warn];[crit];[min];[max]`. */
export interface PerfDatum {
  readonly label: string;
  readonly value: number;
  /** Unit of measure: "", "s", "ms", "us", "%", "B", "KB", "MB", "GB", "TB", "c", or a custom unit. */
  readonly uom: string;
  /** Threshold ranges exactly as printed (Nagios range syntax); "" when absent. */
  readonly warn: string;
  readonly crit: string;
  readonly min?: number;
  readonly max?: number;
}

/**
 * What a check produced: the Nagios plugin contract. A failing check is data (a CRITICAL or UNKNOWN
 * outcome with an output that says why), never an exception.
 */
export interface CheckOutcome {
  readonly exitStatus: import("./state.js").ExitStatus;
  /** The first line of plugin output, without perfdata. */
  readonly output: string;
  /** Further lines of plugin output, without perfdata; "" when none. */
  readonly longOutput: string;
  readonly perfdata: readonly PerfDatum[];
}

/** A result for one object at one time, as it enters the command pipeline. */
export interface CheckResult extends CheckOutcome {
  readonly host: string;
  /** Absent for a host check. */
  readonly service?: string;
  /** Milliseconds since the epoch when the check ran (or the submitter said it ran). */
  readonly checkedAt: number;
  /** How long the check took, in milliseconds; 0 for passive results. */
  readonly durationMs: number;
  /** How the result arrived. */
  readonly source: "active" | "passive" | "freshness";
  /**
   * Who ran the check when it was not this server: the id of the zone worker that ran it
   * (docs/zones.md). Absent for checks this server ran, and for passive and freshness results.
   */
  readonly executor?: string;
}

/** The peers benchmark's figures and the markdown table docs/benchmarks.md holds. */

export interface Figure {
  readonly workload: string;
  /** `lookout`, `icinga2`, `nagios4`, optionally with the form in parentheses. */
  readonly system: string;
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  readonly better: "higher" | "lower";
  readonly round?: number;
  /** The 1-minute load average when the run (or the median of the runs) started. */
  readonly load: number;
}

interface Target {
  readonly workload: RegExp;
  readonly metric: string;
  readonly lookout: RegExp;
  readonly peer: "icinga2" | "nagios4";
  /** Lookout/peer must be at least this (higher is better) or at most this (lower is better). */
  readonly ratio: number;
  readonly text: string;
}

/** The issue's targets, as ratios Lookout/peer. */
const TARGETS: readonly Target[] = [
  {
    workload: /^passive/,
    metric: "results/s",
    lookout: /batches/,
    peer: "icinga2",
    ratio: 14,
    text: ">= 14x Icinga 2",
  },
  {
    workload: /^passive/,
    metric: "results/s",
    lookout: /one per request/,
    peer: "icinga2",
    ratio: 5,
    text: ">= 5x Icinga 2",
  },
  {
    workload: /^active/,
    metric: "checks/s",
    lookout: /^lookout$/,
    peer: "icinga2",
    ratio: 2,
    text: ">= 2x Icinga 2",
  },
  {
    workload: /^memory/,
    metric: "RSS per service",
    lookout: /^lookout$/,
    peer: "icinga2",
    ratio: 1 / 8,
    text: "<= 1/8 of Icinga 2",
  },
  {
    workload: /^memory/,
    metric: "RSS per service",
    lookout: /^lookout$/,
    peer: "nagios4",
    ratio: 1,
    text: "below Nagios 4",
  },
  {
    workload: /^command file/,
    metric: "lines/s applied",
    lookout: /^lookout$/,
    peer: "nagios4",
    ratio: 1,
    text: ">= Nagios 4",
  },
  {
    workload: /^validate 100000$/,
    metric: "wall",
    lookout: /^lookout$/,
    peer: "nagios4",
    ratio: 1,
    text: "faster than Nagios 4",
  },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function fmt(v: number, unit: string): string {
  const digits = Number.isInteger(v) || Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return `${v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${unit}`;
}

export function renderTable(
  figures: readonly Figure[],
  meta: { started: Date; machine: string; versions: Record<string, string>; quick: boolean; scale: number },
): string {
  const groups = new Map<string, { f: Figure; values: number[]; loads: number[] }>();
  for (const f of figures) {
    const k = `${f.workload}\0${f.metric}\0${f.system}`;
    const g = groups.get(k) ?? { f, values: [], loads: [] };
    g.values.push(f.value);
    g.loads.push(f.load);
    groups.set(k, g);
  }
  const value = (workload: string, metric: string, system: RegExp): number | undefined => {
    for (const g of groups.values()) {
      if (g.f.workload === workload && g.f.metric === metric && system.test(g.f.system))
        return median(g.values);
    }
    return undefined;
  };
  const lines = [
    "# Lookout side by side with Icinga 2 and Nagios 4",
    "",
    `Measured by \`npm run bench:peers\`${meta.quick ? " (QUICK=1: one run each)" : " (median of three runs, alternating systems)"} on ${meta.started.toISOString().slice(0, 10)}.`,
    `Machine: ${meta.machine}. Versions: Lookout ${meta.versions.lookout}, Icinga 2 ${meta.versions.icinga2}, Nagios ${meta.versions.nagios4} (Debian builds).${meta.scale === 1 ? "" : ` Fleet sizes scaled by ${meta.scale}.`}`,
    "",
    "Each system runs the same fleet (hosts of ten services; hosts not checked actively) in the foreground from a private directory, on loopback. Ratios are Lookout / peer.",
    "",
    "| workload | metric | system | value | load at start | Lookout / Icinga 2 | Lookout / Nagios 4 | target |",
    "|---|---|---|---:|---:|---:|---:|---|",
  ];
  const ordered = [...groups.values()].sort((a, b) => figures.indexOf(a.f) - figures.indexOf(b.f));
  for (const g of ordered) {
    const { workload, metric, system, unit } = g.f;
    const v = median(g.values);
    let ri = "";
    let rn = "";
    let target = "";
    if (system.startsWith("lookout")) {
      const i = value(workload, metric, /^icinga2/);
      const n = value(workload, metric, /^nagios4/);
      ri = i === undefined || i === 0 ? "" : `${(v / i).toFixed(2)}x`;
      rn = n === undefined || n === 0 ? "" : `${(v / n).toFixed(2)}x`;
      const t = TARGETS.filter(
        (t) => t.workload.test(workload) && t.metric === metric && t.lookout.test(system),
      );
      target = t
        .map((t) => {
          const peer = value(workload, metric, new RegExp(`^${t.peer}`));
          if (peer === undefined || peer === 0) return `${t.text}: not measured`;
          const ratio = v / peer;
          const met = g.f.better === "higher" ? ratio >= t.ratio : ratio <= t.ratio;
          return `${t.text}: ${met ? "**met**" : "**not met**"}`;
        })
        .join("; ");
    }
    const load = median(g.loads).toFixed(2);
    lines.push(
      `| ${workload} | ${metric} | ${system} | ${fmt(v, unit)} | ${load} | ${ri} | ${rn} | ${target} |`,
    );
  }
  lines.push(
    "",
    "Load at start: the machine's 1-minute load average when the run started (the median over the runs); a figure taken at a load above the core count says how starved the systems were, not what they give.",
    "",
    "Active checks at overload: checks/s alone is not the whole comparison. Lookout keeps each service on its grid: a due run waits for a free slot, and the slots it misses meanwhile are *skipped*, never made up (`slots skipped`). Icinga 2 and Nagios 4 skip nothing: they reschedule each check an interval after it ran, so their backlog grows as latency. For all three, `overdue` counts the services whose last check is older than two intervals at the end of the window, by the system's own status. Lookout's lateness is the p99 of its scheduler's lateness histogram (the upper bound of the bucket); the peers report the maximum latency they measure themselves.",
    "",
    "Reload: the time from SIGHUP to the first run of a service the new configuration adds (reload plus the new check's first slot within its 10 s interval). Across the same reload, 200 probe services (the rest of the fleet is passive) run a plugin every 10 s that logs each run: a probe is *late* when the gap between its last run before the signal and its first after is longer than 12 s, and *ran twice* when that gap is shorter than 5 s; the longest gap is shown too.",
    "",
  );
  return lines.join("\n");
}

/** The reload workloads' analysis of probe runs (bench:peers, bench:reload). */

/**
 * The probes' runs across a reload at `t` (seconds since the epoch): for each probe, the gap
 * between its last run before `t` and its first after. Late: a gap longer than the interval plus
 * 2 s (the reload held it back); twice: a gap shorter than half the interval (it ran again at once).
 */
export function probeGaps(
  log: string,
  t: number,
  intervalS: number,
): { probes: number; late: number; twice: number; maxGapS: number } {
  const runs = new Map<string, number[]>();
  for (const line of log.split("\n")) {
    const [at, key] = line.split(" ");
    if (at === undefined || key === undefined || at === "") continue;
    const list = runs.get(key) ?? [];
    list.push(Number(at));
    runs.set(key, list);
  }
  let late = 0;
  let twice = 0;
  let maxGapS = 0;
  let probes = 0;
  for (const ts of runs.values()) {
    ts.sort((a, b) => a - b);
    const before = ts.filter((x) => x < t).at(-1);
    const after = ts.find((x) => x >= t);
    if (before === undefined || after === undefined) continue;
    probes++;
    const gap = after - before;
    maxGapS = Math.max(maxGapS, gap);
    if (gap > intervalS + 2) late++;
    else if (gap < intervalS / 2) twice++;
  }
  return { probes, late, twice, maxGapS };
}

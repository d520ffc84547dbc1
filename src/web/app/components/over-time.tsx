import { useEffect, useState } from "preact/hooks";
import { objectHref } from "../format.js";
import { PerfdataCharts } from "./perfdata-charts.js";
import { StateTimeline } from "./state-timeline.js";

/** The ranges offered; "" (the default) is everything the log keeps. */
const RANGES: readonly { key: string; label: string; ms: number | undefined }[] = [
  { key: "1h", label: "1 hour", ms: 3_600_000 },
  { key: "6h", label: "6 hours", ms: 6 * 3_600_000 },
  { key: "1d", label: "1 day", ms: 86_400_000 },
  { key: "7d", label: "7 days", ms: 7 * 86_400_000 },
  { key: "", label: "All kept", ms: undefined },
];
/** How often the timeline and the charts are read again while shown. */
const REREAD_MS = 30_000;

/**
 * The object over time: its state timeline and a chart per perfdata label, over a range picked
 * here (`?range=` in the address: 1h, 6h, 1d, 7d; absent: all the log keeps), re-read every 30 s.
 */
export function OverTime(props: { host: string; service: string | undefined; range: string }) {
  const { host, service } = props;
  const range =
    RANGES.find((r) => r.key === props.range) ?? (RANGES[RANGES.length - 1] as (typeof RANGES)[number]);
  const [until, setUntil] = useState(() => Date.now());
  const [tick, setTick] = useState(0);
  // The page mounts this anew for another object or range (its key), so `until` starts right.
  useEffect(() => {
    const t = setInterval(() => {
      setUntil(Date.now());
      setTick((n) => n + 1);
    }, REREAD_MS);
    return () => clearInterval(t);
  }, []);
  const since = range.ms === undefined ? undefined : until - range.ms;
  const base = objectHref(host, service);
  return (
    <section class="over-time" aria-labelledby="over-time-title">
      <h2 id="over-time-title">Over time</h2>
      <nav class="ranges" aria-label="Range">
        {RANGES.map((r) => (
          <a
            key={r.key}
            href={r.key === "" ? base : `${base}?range=${r.key}`}
            aria-current={r.key === range.key ? "true" : undefined}
          >
            {r.label}
          </a>
        ))}
      </nav>
      <StateTimeline host={host} service={service} since={since} until={until} tick={tick} />
      <PerfdataCharts host={host} service={service} since={since} until={until} tick={tick} />
    </section>
  );
}

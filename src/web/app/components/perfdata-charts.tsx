import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { useEffect, useMemo, useRef } from "preact/hooks";
import type { PerfdataSeries } from "../../../api/gen/svc/v1/query_service_pb.js";
import { query } from "../api.js";
import type { Chart, ChartInput } from "./perf-chart.js";
import { thresholdLines } from "./perf-thresholds.js";
import { useRead } from "./poll.js";

/** The API's most points per series: a week of one result a minute, undivided. */
const MAX_POINTS = 10_000;

/** uPlot and its stylesheet, fetched the first time a chart is drawn (a chunk of its own). */
let chartModule: Promise<typeof import("./perf-chart.js")> | undefined;
const loadChart = () => {
  chartModule ??= import("./perf-chart.js");
  return chartModule;
};

function colors(): ChartInput["colors"] {
  const v = (n: string) => getComputedStyle(document.documentElement).getPropertyValue(n).trim() || "#888";
  return {
    line: v("--accent"),
    warn: v("--warning"),
    crit: v("--critical"),
    axis: v("--muted"),
    grid: v("--line"),
  };
}

/**
 * Each perfdata label of the object as a chart over the range (ListPerfdata: the results in the
 * event log, reduced by the server to the minimum and maximum of time buckets beyond 10,000), with
 * its warning and critical thresholds as dashed lines. Re-read with `tick`.
 */
export function PerfdataCharts(props: {
  host: string;
  service: string | undefined;
  since: number | undefined;
  until: number;
  tick: number;
}) {
  const { host, service, since, until, tick } = props;
  const { data, error } = useRead(
    () =>
      query.listPerfdata({
        host,
        ...(service === undefined ? {} : { service }),
        ...(since === undefined ? {} : { since: timestampFromMs(since) }),
        until: timestampFromMs(until),
        maxPoints: MAX_POINTS,
      }),
    [host, service, since, until, tick],
  );

  const times = useMemo(
    () => (data === undefined ? [] : data.times.map((t) => timestampMs(t) / 1000)),
    [data],
  );
  if (error !== "") return <p class="error">{error}</p>;
  if (data === undefined) return <p class="muted">Reading the performance data…</p>;
  if (data.series.length === 0) return <p class="muted">No performance data in this range.</p>;
  const from = since === undefined ? (times[0] ?? until / 1000) : since / 1000;
  return (
    <div class="perf-charts">
      {data.downsampled && (
        <p class="muted small">
          More results than {MAX_POINTS.toLocaleString()} in this range: each time bucket shows its minimum
          and maximum.
        </p>
      )}
      {data.series.map((s) => (
        <PerfChart key={s.label} series={s} times={times} from={from} to={until / 1000} />
      ))}
    </div>
  );
}

function PerfChart(props: { series: PerfdataSeries; times: number[]; from: number; to: number }) {
  const { series, times, from, to } = props;
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<Chart | undefined>(undefined);
  const warn = thresholdLines(series.warn);
  const crit = thresholdLines(series.crit);
  const input: ChartInput = {
    label: series.label,
    uom: series.uom,
    times,
    values: series.values,
    warn,
    crit,
    from,
    to,
    colors: colors(),
  };

  useEffect(() => {
    let stop = false;
    let ro: ResizeObserver | undefined;
    void loadChart().then((m) => {
      const box = el.current;
      if (stop || box === null) return;
      if (chart.current === undefined) {
        chart.current = m.createChart(box, input, box.clientWidth);
        ro = new ResizeObserver(() => chart.current?.resize(box.clientWidth));
        ro.observe(box);
      } else chart.current.update(input);
    });
    return () => {
      stop = true;
      ro?.disconnect();
    };
    // Drawn again only when the data or the range change (the page re-renders every second).
  }, [series, times, from, to]);
  useEffect(
    () => () => {
      chart.current?.destroy();
      chart.current = undefined;
    },
    [],
  );

  let newest: number | undefined;
  for (let i = series.values.length - 1; i >= 0 && newest === undefined; i--) {
    const v = series.values[i] as number;
    if (!Number.isNaN(v)) newest = v;
  }
  return (
    <figure class="perf" aria-label={`Chart of ${series.label}`} data-points={series.values.length}>
      <figcaption>
        <strong>{series.label}</strong>
        {newest !== undefined && (
          <span>
            {" "}
            {newest}
            {series.uom}
          </span>
        )}
        {series.warn !== "" && <span class="th-warn"> warn {series.warn}</span>}
        {series.crit !== "" && <span class="th-crit"> crit {series.crit}</span>}
        {series.min !== undefined && <span class="muted"> min {series.min}</span>}
        {series.max !== undefined && <span class="muted"> max {series.max}</span>}
      </figcaption>
      <div class="chart" ref={el} />
    </figure>
  );
}

/**
 * One perfdata label drawn with uPlot (a canvas chart of about 50 KB, loaded only with the object
 * page's charts: this module is imported dynamically, so the rest of the dashboard does not carry
 * it). The warning and critical thresholds are horizontal dashed lines drawn in the plot's draw
 * hook, so they cost nothing per point; 10,000 points draw in a few milliseconds.
 */
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface ChartInput {
  readonly label: string;
  readonly uom: string;
  /** Seconds since the epoch, oldest first. */
  readonly times: Float64Array | number[];
  /** One per time; NaN where the result lacked the label (drawn as a gap). */
  readonly values: Float64Array | number[];
  readonly warn: readonly number[];
  readonly crit: readonly number[];
  /** The x range in seconds (the range picked), so every chart and the timeline line up. */
  readonly from: number;
  readonly to: number;
  readonly colors: {
    readonly line: string;
    readonly warn: string;
    readonly crit: string;
    readonly axis: string;
    readonly grid: string;
  };
}

export interface Chart {
  /** How long the last draw took, in ms (shown as data-draw-ms for the benchmark figures). */
  readonly drawMs: number;
  update(input: ChartInput): void;
  resize(width: number): void;
  destroy(): void;
}

function toData(input: ChartInput): uPlot.AlignedData {
  const values: (number | null)[] = new Array(input.values.length);
  for (let i = 0; i < input.values.length; i++) {
    const v = input.values[i] as number;
    values[i] = Number.isNaN(v) ? null : v;
  }
  return [Array.from(input.times), values];
}

/** Draws the chart into `el`, `width` CSS pixels wide. */
export function createChart(el: HTMLElement, input: ChartInput, width: number): Chart {
  let current = input;
  let drawMs = 0;
  /** When the draw being waited for was asked for: uPlot draws in a microtask, not in the call. */
  let asked = performance.now();
  const drawThresholds = (u: uPlot) => {
    const ctx = u.ctx;
    const { left, width: w } = u.bbox;
    ctx.save();
    ctx.lineWidth = Math.max(1, devicePixelRatio);
    ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
    for (const [values, color] of [
      [current.warn, current.colors.warn],
      [current.crit, current.colors.crit],
    ] as const) {
      ctx.strokeStyle = color;
      for (const v of values) {
        const y = Math.round(u.valToPos(v, "y", true)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(left, y);
        ctx.lineTo(left + w, y);
        ctx.stroke();
      }
    }
    ctx.restore();
    drawMs = performance.now() - asked;
    el.dataset.drawMs = drawMs.toFixed(1);
  };
  const opts: uPlot.Options = {
    width,
    height: 180,
    class: "perf-chart",
    series: [
      {},
      {
        label: current.uom === "" ? current.label : `${current.label} (${current.uom})`,
        stroke: current.colors.line,
        width: 1.5,
        spanGaps: false,
        points: { show: false },
      },
    ],
    scales: {
      x: { time: true, range: () => [current.from, current.to] },
      y: {
        // The thresholds are always in view, with the values.
        range: (_u, min, max) => {
          const all = [...current.warn, ...current.crit];
          let lo = Math.min(min ?? Number.POSITIVE_INFINITY, ...all);
          let hi = Math.max(max ?? Number.NEGATIVE_INFINITY, ...all);
          if (!Number.isFinite(lo) || !Number.isFinite(hi)) [lo, hi] = [0, 1];
          if (lo === hi) [lo, hi] = [lo - 1, hi + 1];
          const pad = (hi - lo) * 0.05;
          return [lo - pad, hi + pad];
        },
      },
    },
    axes: [
      { stroke: current.colors.axis, grid: { stroke: current.colors.grid, width: 1 } },
      { stroke: current.colors.axis, grid: { stroke: current.colors.grid, width: 1 }, size: 60 },
    ],
    cursor: { drag: { x: false, y: false } },
    hooks: { draw: [drawThresholds] },
  };
  asked = performance.now();
  const plot = new uPlot(opts, toData(current), el);
  return {
    get drawMs() {
      return drawMs;
    },
    update(next) {
      current = next;
      asked = performance.now();
      plot.setData(toData(next));
    },
    resize(w) {
      plot.setSize({ width: w, height: 180 });
    },
    destroy() {
      plot.destroy();
    },
  };
}

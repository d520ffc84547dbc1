import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { useEffect, useRef } from "preact/hooks";
import type { HistoryEntry } from "../../../api/gen/svc/v1/query_service_pb.js";
import { State, StateType } from "../../../api/gen/svc/v1/types_pb.js";
import { query } from "../api.js";
import { stateName, when } from "../format.js";
import { useRead } from "./poll.js";

/** The kinds the timeline draws (ListHistory `kinds`). */
const KINDS = [
  "StateChange",
  "AcknowledgementSet",
  "AcknowledgementRemoved",
  "DowntimeStarted",
  "DowntimeEnded",
  "DowntimeExpired",
  "DowntimeDeleted",
  "FlappingStart",
  "FlappingStop",
];
/** At most this many pages of 1,000 events are drawn (a week of a flapping check is far fewer). */
const MAX_PAGES = 20;

export interface Segment {
  readonly from: number;
  readonly to: number;
  readonly state: State;
  readonly soft: boolean;
}
export interface Band {
  readonly from: number;
  readonly to: number;
}
export interface Timeline {
  readonly from: number;
  readonly to: number;
  readonly states: readonly Segment[];
  readonly acks: readonly Band[];
  readonly downtimes: readonly Band[];
  readonly flapping: readonly Band[];
}

const ms = (e: HistoryEntry) => (e.at === undefined ? 0 : timestampMs(e.at));

/**
 * The state, acknowledgement, downtime and flapping of one object over [from, to): where each
 * stood at `from` is the newest event of its kind before it (`before`, newest first), then every
 * event in the range (`events`, oldest first) moves it.
 */
export function buildTimeline(
  before: readonly HistoryEntry[],
  events: readonly HistoryEntry[],
  from: number,
  to: number,
): Timeline {
  let state: State = State.PENDING;
  let soft = false;
  let acked = false;
  let downtimes = 0;
  let flapping = false;
  const seen = new Set<string>();
  for (const e of before) {
    if (e.kind === "StateChange" && !seen.has("state")) {
      seen.add("state");
      state = e.state;
      soft = e.stateType === StateType.SOFT;
    } else if (e.kind.startsWith("Acknowledgement") && !seen.has("ack")) {
      seen.add("ack");
      acked = e.kind === "AcknowledgementSet";
    } else if (e.kind.startsWith("Downtime") && !seen.has("dt")) {
      seen.add("dt");
      downtimes = e.kind === "DowntimeStarted" ? 1 : 0;
    } else if (e.kind.startsWith("Flapping") && !seen.has("flap")) {
      seen.add("flap");
      flapping = e.kind === "FlappingStart";
    }
  }
  const states: Segment[] = [];
  const acks: Band[] = [];
  const dts: Band[] = [];
  const flaps: Band[] = [];
  let stateFrom = from;
  let ackFrom = from;
  let dtFrom = from;
  let flapFrom = from;
  for (const e of events) {
    const t = Math.min(Math.max(ms(e), from), to);
    switch (e.kind) {
      case "StateChange":
        if (t > stateFrom) states.push({ from: stateFrom, to: t, state, soft });
        state = e.state;
        soft = e.stateType === StateType.SOFT;
        stateFrom = t;
        break;
      case "AcknowledgementSet":
        if (!acked) ackFrom = t;
        acked = true;
        break;
      case "AcknowledgementRemoved":
        if (acked) acks.push({ from: ackFrom, to: t });
        acked = false;
        break;
      case "DowntimeStarted":
        if (downtimes++ === 0) dtFrom = t;
        break;
      case "DowntimeEnded":
      case "DowntimeExpired":
      case "DowntimeDeleted":
        if (downtimes > 0 && --downtimes === 0) dts.push({ from: dtFrom, to: t });
        break;
      case "FlappingStart":
        if (!flapping) flapFrom = t;
        flapping = true;
        break;
      case "FlappingStop":
        if (flapping) flaps.push({ from: flapFrom, to: t });
        flapping = false;
        break;
      default:
        break;
    }
  }
  if (to > stateFrom) states.push({ from: stateFrom, to, state, soft });
  if (acked) acks.push({ from: ackFrom, to });
  if (downtimes > 0) dts.push({ from: dtFrom, to });
  if (flapping) flaps.push({ from: flapFrom, to });
  return { from, to, states, acks, downtimes: dts, flapping: flaps };
}

/** Reads what the timeline of [since, until) needs: the events before it, and every event in it. */
async function readTimeline(
  host: string,
  service: string | undefined,
  since: number | undefined,
  until: number,
): Promise<Timeline> {
  const base = { host, ...(service === undefined ? {} : { service }), kinds: KINDS };
  const before: HistoryEntry[] = [];
  if (since !== undefined) {
    // The newest events before the range; a page may come back empty with a token (the server
    // stops scanning after a while): follow a few.
    let token = "";
    for (let i = 0; i < 5; i++) {
      const res = await query.listHistory({
        ...base,
        until: timestampFromMs(since),
        pageSize: 100,
        pageToken: token,
      });
      before.push(...res.entries);
      token = res.nextPageToken;
      if (res.entries.length > 0 || token === "") break;
    }
  }
  const events: HistoryEntry[] = [];
  let token = "";
  for (let i = 0; i < MAX_PAGES; i++) {
    const res = await query.listHistory({
      ...base,
      ...(since === undefined ? {} : { since: timestampFromMs(since) }),
      until: timestampFromMs(until),
      oldestFirst: true,
      pageSize: 1000,
      pageToken: token,
    });
    events.push(...res.entries);
    token = res.nextPageToken;
    if (token === "") break;
  }
  const from = since ?? (events[0] === undefined ? until : ms(events[0]));
  return buildTimeline(before, events, from, until);
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

function stateColor(s: State): string {
  switch (s) {
    case State.CRITICAL:
    case State.DOWN:
      return cssVar("--critical");
    case State.WARNING:
    case State.UNREACHABLE:
      return cssVar("--warning");
    case State.UNKNOWN:
      return cssVar("--unknown");
    case State.OK:
    case State.UP:
      return cssVar("--ok");
    default:
      return cssVar("--pending");
  }
}

const LABEL_W = 110;
const LANES = [
  { key: "states", title: "State", height: 22 },
  { key: "acks", title: "Acknowledged", height: 10 },
  { key: "downtimes", title: "Downtime", height: 10 },
  { key: "flapping", title: "Flapping", height: 10 },
] as const;
const GAP = 6;
const AXIS_H = 18;

/** Paints the timeline on the canvas, `width` CSS pixels wide. */
function paint(canvas: HTMLCanvasElement, t: Timeline, width: number): void {
  const dpr = devicePixelRatio || 1;
  const height = LANES.reduce((h, l) => h + l.height + GAP, 0) + AXIS_H;
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(height * dpr);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const ctx = canvas.getContext("2d");
  if (ctx === null) return;
  ctx.scale(dpr, dpr);
  const plotW = Math.max(1, width - LABEL_W);
  const span = Math.max(1, t.to - t.from);
  const x = (ms: number) => LABEL_W + ((ms - t.from) / span) * plotW;
  const fg = cssVar("--fg");
  const muted = cssVar("--muted");
  const line = cssVar("--line");
  ctx.font = "12px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  let y = 0;
  for (const lane of LANES) {
    ctx.fillStyle = muted;
    ctx.fillText(lane.title, 0, y + lane.height / 2);
    ctx.fillStyle = line;
    ctx.fillRect(LABEL_W, y + lane.height - 1, plotW, 1);
    if (lane.key === "states") {
      for (const s of t.states) {
        ctx.fillStyle = stateColor(s.state);
        // A soft state is lighter and half as tall: not (yet) confirmed.
        ctx.globalAlpha = s.soft ? 0.5 : 1;
        const h = s.soft ? lane.height / 2 : lane.height;
        const x0 = x(s.from);
        ctx.fillRect(x0, y + lane.height - h, Math.max(1, x(s.to) - x0), h);
      }
      ctx.globalAlpha = 1;
    } else {
      ctx.fillStyle =
        lane.key === "acks" ? cssVar("--accent") : lane.key === "downtimes" ? muted : cssVar("--unknown");
      for (const b of t[lane.key]) {
        const x0 = x(b.from);
        ctx.fillRect(x0, y, Math.max(1, x(b.to) - x0), lane.height);
      }
    }
    y += lane.height + GAP;
  }
  ctx.fillStyle = fg;
  ctx.textBaseline = "top";
  ctx.textAlign = "left";
  ctx.fillText(when(t.from), LABEL_W, y + 2);
  ctx.textAlign = "right";
  ctx.fillText(when(t.to), width, y + 2);
}

/** A text for screen readers and tests: the segments, oldest first (at most 40). */
function describe(t: Timeline): string {
  const parts = t.states
    .slice(-40)
    .map((s) => `${stateName(s.state)} ${s.soft ? "soft" : "hard"} from ${when(s.from)} to ${when(s.to)}`);
  return `State timeline: ${parts.join("; ")}. Acknowledged ${t.acks.length} times, ${t.downtimes.length} downtimes, flapping ${t.flapping.length} times.`;
}

/**
 * The object's state over the range as a band of colour (hard full height, soft half height and
 * lighter), with lanes for acknowledgements, downtimes and flapping below it; hovering says what
 * held at that moment. From ListHistory with since/until and kinds, re-read with `tick`.
 */
export function StateTimeline(props: {
  host: string;
  service: string | undefined;
  since: number | undefined;
  until: number;
  tick: number;
}) {
  const { host, service, since, until, tick } = props;
  const { data: timeline, error } = useRead(
    () => readTimeline(host, service, since, until),
    [host, service, since, until, tick],
  );
  const canvas = useRef<HTMLCanvasElement>(null);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const c = canvas.current;
    const b = box.current;
    if (c === null || b === null || timeline === undefined) return;
    const draw = () => paint(c, timeline, b.clientWidth);
    draw();
    const ro = new ResizeObserver(draw);
    ro.observe(b);
    return () => ro.disconnect();
  }, [timeline]);

  const onMove = (e: MouseEvent) => {
    const c = canvas.current;
    if (c === null || timeline === undefined) return;
    const r = c.getBoundingClientRect();
    const plotW = r.width - LABEL_W;
    const at = timeline.from + ((e.clientX - r.left - LABEL_W) / plotW) * (timeline.to - timeline.from);
    const s = timeline.states.find((x) => x.from <= at && at < x.to);
    const in_ = (bands: readonly Band[]) => bands.some((b) => b.from <= at && at < b.to);
    c.title =
      s === undefined
        ? ""
        : `${when(at)}: ${stateName(s.state)} ${s.soft ? "soft" : "hard"}${in_(timeline.acks) ? ", acknowledged" : ""}${in_(timeline.downtimes) ? ", in downtime" : ""}${in_(timeline.flapping) ? ", flapping" : ""}`;
  };

  return (
    <div class="timeline" ref={box}>
      {error !== "" && <p class="error">{error}</p>}
      {timeline === undefined && error === "" && <p class="muted">Reading the history…</p>}
      <canvas
        ref={canvas}
        role="img"
        aria-label={timeline === undefined ? "State timeline" : describe(timeline)}
        data-segments={timeline?.states.length ?? 0}
        onMouseMove={onMove}
      />
    </div>
  );
}

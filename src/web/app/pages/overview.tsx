import { useMemo } from "preact/hooks";
import type { View } from "../../../api/gen/svc/v1/query_service_pb.js";
import { State } from "../../../api/gen/svc/v1/types_pb.js";
import { asOfParam, asOfValue } from "../as-of.js";
import type { PendingAction } from "../components/action-dialog.js";
import { AsOfControl } from "../components/as-of-control.js";
import { statusColumns } from "../components/status-columns.js";
import { VirtualTable } from "../components/virtual-table.js";
import { isProblem, severity, stateName } from "../format.js";
import { useNow } from "../now.js";
import { href, type Route } from "../router.js";
import { type Row, useStatus } from "../status-source.js";

const ORDER = [
  State.CRITICAL,
  State.DOWN,
  State.UNKNOWN,
  State.WARNING,
  State.UNREACHABLE,
  State.PENDING,
  State.OK,
  State.UP,
];

/** Worst first; within a severity the most recent change first. */
function byUrgency(a: Row, b: Row): number {
  return severity(b.state) - severity(a.state) || b.lastChange - a.lastChange;
}

/** Counts per state and the problems split into unhandled and handled (acknowledged or in downtime). */
function summarize(rows: readonly Row[]) {
  const counts = new Map<State, number>();
  const unhandled: Row[] = [];
  const handled: Row[] = [];
  for (const r of rows) {
    counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
    if (!isProblem(r.state)) continue;
    if (r.acked || r.inDowntime) handled.push(r);
    else unhandled.push(r);
  }
  unhandled.sort(byUrgency);
  handled.sort(byUrgency);
  return { counts, unhandled, handled };
}

/**
 * The problem overview: counts per state, the unhandled problems first (worst and newest on top),
 * the handled ones apart, and one tile per configured view.
 */
export function OverviewPage(props: {
  route: Route;
  views: readonly View[] | undefined;
  onAction: ((a: PendingAction) => void) | undefined;
}) {
  // As of a past moment: that moment's status, read once, without actions.
  const at = asOfParam(props.route.params);
  const atParam = at === undefined ? undefined : asOfValue(at);
  const onAction = at === undefined ? props.onAction : undefined;
  const snap = useStatus("", at);
  const clock = useNow();
  const now = at ?? clock;
  const { counts, unhandled, handled } = useMemo(() => summarize(snap.rows), [snap.rows]);
  const cols = useMemo(() => statusColumns(now, onAction), [now, onAction]);
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <AsOfControl route={props.route} at={at} snap={snap} />
      <ul class="counts" aria-label="Objects per state">
        {ORDER.filter((s) => (counts.get(s) ?? 0) > 0 || s === State.CRITICAL || s === State.OK).map((s) => (
          <li key={s}>
            <a
              class={`count st-${stateName(s).toLowerCase()}`}
              href={href("status", { state: stateName(s), at: atParam })}
            >
              <span class="n">{(counts.get(s) ?? 0).toLocaleString()}</span>
              <span class="label">{stateName(s)}</span>
            </a>
          </li>
        ))}
        <li>
          <a class="count" href={href("status", { at: atParam })}>
            <span class="n">{snap.total.toLocaleString()}</span>
            <span class="label">objects{snap.complete ? "" : " (loading…)"}</span>
          </a>
        </li>
      </ul>
      {snap.error !== undefined && !snap.complete && at === undefined && <p class="error">{snap.error}</p>}
      <h2 id="unhandled">
        Unhandled problems <span class="muted">({unhandled.length.toLocaleString()})</span>
      </h2>
      <div class="table-short">
        <VirtualTable
          label="Unhandled problems"
          rows={unhandled}
          columns={cols}
          rowKey={(r) => r.key}
          rowClass={(r) => `st-row-${stateName(r.state).toLowerCase()}`}
        />
      </div>
      <h2 id="handled">
        Handled <span class="muted">(acknowledged or in downtime: {handled.length.toLocaleString()})</span>
      </h2>
      <div class="table-short small">
        <VirtualTable label="Handled problems" rows={handled} columns={cols} rowKey={(r) => r.key} />
      </div>
      <h2>Views</h2>
      {/* Tiles read their views only once the fleet's first page is in: the problems come first. */}
      {props.views === undefined || snap.fetchedAt === 0 ? (
        <p class="muted">Loading views…</p>
      ) : props.views.length === 0 ? (
        <p class="muted">No views are configured (views in the config).</p>
      ) : (
        <ul class="tiles">
          {props.views.map((v) => (
            <ViewTile key={v.name} view={v} at={at} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ViewTile(props: { view: View; at: number | undefined }) {
  const { view, at } = props;
  const snap = useStatus(view.selector, at);
  let problems = 0;
  let unhandled = 0;
  let worst: State = State.OK;
  for (const r of snap.rows) {
    if (!isProblem(r.state)) continue;
    problems++;
    if (!r.acked && !r.inDowntime) {
      unhandled++;
      if (severity(r.state) > severity(worst)) worst = r.state;
    }
  }
  return (
    <li>
      <a
        class={`tile st-edge-${stateName(worst).toLowerCase()}`}
        href={href("status", { view: view.name, at: at === undefined ? undefined : asOfValue(at) })}
      >
        <strong>{view.name}</strong>
        <span class="muted">{view.description}</span>
        <code>{view.selector}</code>
        <span>
          {snap.total.toLocaleString()} objects · {unhandled} unhandled · {problems} problems
        </span>
        {snap.error !== undefined && <span class="error">{snap.error}</span>}
      </a>
    </li>
  );
}

import { useMemo, useState } from "preact/hooks";
import type { View } from "../../../api/gen/svc/v1/query_service_pb.js";
import { asOfParam } from "../as-of.js";
import type { PendingAction } from "../components/action-dialog.js";
import { AsOfControl } from "../components/as-of-control.js";
import { CheckNowButton } from "../components/check-now.js";
import { BulkSwitches } from "../components/object-switches.js";
import { statusColumns } from "../components/status-columns.js";
import { type SortState, VirtualTable } from "../components/virtual-table.js";
import { isProblem, severity, stateName } from "../format.js";
import { useNow } from "../now.js";
import { href, type Route, replaceRoute } from "../router.js";
import { type Row, useStatus } from "../status-source.js";

type Compare = (a: Row, b: Row) => number;

const text = (a: string | undefined, b: string | undefined) => (a ?? "").localeCompare(b ?? "");
const SORTS: Record<string, Compare> = {
  state: (a, b) => severity(a.state) - severity(b.state) || b.lastChange - a.lastChange,
  host: (a, b) => text(a.host, b.host) || text(a.service, b.service),
  service: (a, b) => text(a.service, b.service) || text(a.host, b.host),
  // Ascending duration is the most recent change first.
  duration: (a, b) => b.lastChange - a.lastChange,
  output: (a, b) => text(a.output, b.output),
};

/** Which rows the state box keeps. */
function stateFilter(f: string): (r: Row) => boolean {
  if (f === "") return () => true;
  if (f === "problems") return (r) => isProblem(r.state);
  if (f === "unhandled") return (r) => isProblem(r.state) && !r.acked && !r.inDowntime;
  if (f === "handled") return (r) => isProblem(r.state) && (r.acked || r.inDowntime);
  return (r) => stateName(r.state) === f;
}

const STATE_CHOICES = [
  "",
  "problems",
  "unhandled",
  "handled",
  "CRITICAL",
  "WARNING",
  "UNKNOWN",
  "DOWN",
  "UNREACHABLE",
  "PENDING",
  "OK",
  "UP",
];

/**
 * The status table for the fleet, a view or a typed selector. The selector goes to the server
 * (ListStatus pages through every match); search, state filter and sort work on the rows in the
 * browser, and the table renders only what is in view, so 100,000 rows stay responsive.
 */
export function StatusPage(props: {
  route: Route;
  views: readonly View[] | undefined;
  onAction: ((a: PendingAction) => void) | undefined;
}) {
  const { route, views } = props;
  const p = route.params;
  // As of a past moment the page shows, and acts on, nothing of now.
  const at = asOfParam(p);
  const onAction = at === undefined ? props.onAction : undefined;
  const viewName = p.get("view") ?? "";
  const view = views?.find((v) => v.name === viewName);
  const selector = view !== undefined ? view.selector : (p.get("sel") ?? "");
  const search = p.get("q") ?? "";
  const state = p.get("state") ?? "";
  const sort: SortState = { column: p.get("sort") ?? "state", descending: p.get("dir") !== "asc" };
  const [draft, setDraft] = useState(selector);
  const snap = useStatus(selector, at);
  const clock = useNow();
  const now = at ?? clock;

  const set = (changes: Record<string, string | undefined>) => {
    const next: Record<string, string | undefined> = {
      view: viewName,
      sel: view === undefined ? selector : undefined,
      q: search,
      state,
      sort: sort.column === "state" ? undefined : sort.column,
      dir: sort.descending ? undefined : "asc",
      at: p.get("at") ?? undefined,
      ...changes,
    };
    replaceRoute(href("status", next));
  };

  const rows = useMemo(() => {
    const q = search.trim().toLowerCase();
    const keep = stateFilter(state);
    const out = snap.rows.filter((r) => keep(r) && (q === "" || r.text.includes(q)));
    const cmp = SORTS[sort.column] ?? SORTS.state!;
    out.sort(sort.descending ? (a, b) => cmp(b, a) : cmp);
    return out;
  }, [snap.rows, search, state, sort.column, sort.descending]);
  const cols = useMemo(() => statusColumns(now, onAction), [now, onAction]);
  const target = { kind: "selector" as const, selector };

  return (
    <section aria-labelledby="status-title">
      <h1 id="status-title">
        Status{view !== undefined ? `: ${view.name}` : selector !== "" ? `: ${selector}` : ""}
      </h1>
      <AsOfControl route={route} at={at} snap={snap} />
      <div class="filters">
        <label>
          View
          <select
            value={viewName}
            onChange={(e) => {
              const v = e.currentTarget.value;
              setDraft(views?.find((x) => x.name === v)?.selector ?? "");
              set({ view: v, sel: undefined });
            }}
          >
            <option value="">(whole fleet or selector)</option>
            {(views ?? []).map((v) => (
              <option key={v.name} value={v.name}>
                {v.name}
              </option>
            ))}
          </select>
        </label>
        <form
          class="selector"
          onSubmit={(e) => {
            e.preventDefault();
            set({ view: undefined, sel: draft.trim() });
          }}
        >
          <label>
            Selector
            <input
              name="selector"
              value={draft}
              placeholder="env=prod, tier in (web, db)"
              onInput={(e) => setDraft(e.currentTarget.value)}
              spellcheck={false}
            />
          </label>
          <button type="submit">Apply</button>
        </form>
        <label>
          Search
          <input
            type="search"
            name="search"
            value={search}
            placeholder="host, service or output"
            onInput={(e) => set({ q: e.currentTarget.value })}
          />
        </label>
        <label>
          State
          <select value={state} onChange={(e) => set({ state: e.currentTarget.value })}>
            {STATE_CHOICES.map((s) => (
              <option key={s} value={s}>
                {s === "" ? "all" : s}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p class="summary" aria-live="polite">
        {rows.length.toLocaleString()} shown of {snap.total.toLocaleString()} matching
        {snap.complete || snap.outOfRange === true ? "" : ` (loading ${snap.rows.length.toLocaleString()}…)`}
        {snap.error !== undefined && at === undefined && <span class="error"> · {snap.error}</span>}
      </p>
      {onAction !== undefined && (
        <fieldset class="bulk" aria-label="Actions on every object the selector matches">
          <span>For {selector.trim() === "" ? "every object" : <code>{selector}</code>}:</span>
          <button type="button" onClick={() => onAction({ kind: "ack", target })}>
            Acknowledge all
          </button>
          <button type="button" onClick={() => onAction({ kind: "unack", target })}>
            Remove acknowledgements
          </button>
          <button type="button" onClick={() => onAction({ kind: "downtime", target })}>
            Schedule downtime
          </button>
          <BulkSwitches selector={selector} total={snap.total} />
          <CheckNowButton target={target} />
        </fieldset>
      )}
      <div class="table-tall">
        <VirtualTable
          label="Status"
          rows={rows}
          columns={cols}
          rowKey={(r) => r.key}
          rowClass={(r) => `st-row-${stateName(r.state).toLowerCase()}`}
          sort={sort}
          resetKey={`${selector}|${search}|${state}|${sort.column}|${sort.descending}|${at ?? ""}`}
          onSort={(c) => {
            // A new column starts worst/newest first for state and duration, A to Z otherwise.
            const desc = sort.column === c ? !sort.descending : c === "state" || c === "duration";
            set({ sort: c === "state" ? undefined : c, dir: desc ? undefined : "asc" });
          }}
        />
      </div>
    </section>
  );
}

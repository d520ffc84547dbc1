import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { useEffect, useState } from "preact/hooks";
import type { ListHistoryResponse } from "../../../api/gen/svc/v1/query_service_pb.js";
import { noteReadError } from "../access.js";
import { messageOf, query } from "../api.js";
import { asOfValue, fromLocalInput, toLocalInput } from "../as-of.js";
import { HistoryList, HistoryTable } from "../components/history-list.js";
import { href, type Route } from "../router.js";

/** The kinds of history entry ListHistory knows (its `kinds` filter), grouped as operators read them. */
const KIND_GROUPS: readonly { title: string; kinds: readonly string[] }[] = [
  { title: "States", kinds: ["StateChange", "FlappingStart", "FlappingStop"] },
  { title: "Acknowledgements", kinds: ["AcknowledgementSet", "AcknowledgementRemoved"] },
  {
    title: "Downtimes",
    kinds: ["DowntimeScheduled", "DowntimeStarted", "DowntimeEnded", "DowntimeExpired", "DowntimeDeleted"],
  },
  { title: "Comments", kinds: ["CommentAdded", "CommentDeleted"] },
  {
    title: "Notifications",
    kinds: ["NotificationSent", "NotificationFailed", "NotificationSuppressed", "CustomNotification"],
  },
  { title: "Commands", kinds: ["ObjectFlagsChanged", "CheckRescheduled", "CommandRejected"] },
];
const PAGE = 100;
const DAY = 86_400_000;

/** The filters of the address: `?since=&until=` (ISO), `kinds=` (comma-separated), `sel=`, `order=oldest`. */
interface Filters {
  readonly since: number | undefined;
  readonly until: number | undefined;
  readonly kinds: readonly string[];
  readonly selector: string;
  readonly oldestFirst: boolean;
}

function filtersOf(p: URLSearchParams): Filters {
  const time = (k: string) => {
    const v = Date.parse(p.get(k) ?? "");
    return Number.isFinite(v) ? v : undefined;
  };
  return {
    since: time("since"),
    until: time("until"),
    kinds: (p.get("kinds") ?? "").split(",").filter((k) => k !== ""),
    selector: p.get("sel") ?? "",
    oldestFirst: p.get("order") === "oldest",
  };
}

function filtersHref(f: Filters): string {
  return href("history", {
    since: f.since === undefined ? undefined : asOfValue(f.since),
    until: f.until === undefined ? undefined : asOfValue(f.until),
    kinds: f.kinds.join(","),
    sel: f.selector,
    order: f.oldestFirst ? "oldest" : undefined,
  });
}

const filtered = (f: Filters) =>
  f.since !== undefined || f.until !== undefined || f.kinds.length > 0 || f.selector !== "" || f.oldestFirst;

/**
 * The history: live (the global feed, newest first, re-read every 3 s) until a filter is set; then
 * ListHistory with that range, kinds, selector and order, a page of 100 at a time with "Older" and
 * "Newer", read when asked (a week of a large fleet is many pages). The filters are in the address.
 */
export function HistoryPage(props: { route: Route }) {
  const f = filtersOf(props.route.params);
  return (
    <section aria-labelledby="history-title">
      <h1 id="history-title">History</h1>
      <FilterForm filters={f} />
      {filtered(f) ? <HistoryPager key={filtersHref(f)} filters={f} /> : <HistoryList />}
    </section>
  );
}

function FilterForm(props: { filters: Filters }) {
  const f = props.filters;
  const [since, setSince] = useState(f.since === undefined ? "" : toLocalInput(f.since));
  const [until, setUntil] = useState(f.until === undefined ? "" : toLocalInput(f.until));
  const [kinds, setKinds] = useState<ReadonlySet<string>>(new Set(f.kinds));
  const [selector, setSelector] = useState(f.selector);
  const [oldest, setOldest] = useState(f.oldestFirst);
  const key = filtersHref(f);
  useEffect(() => {
    setSince(f.since === undefined ? "" : toLocalInput(f.since));
    setUntil(f.until === undefined ? "" : toLocalInput(f.until));
    setKinds(new Set(f.kinds));
    setSelector(f.selector);
    setOldest(f.oldestFirst);
  }, [key]);
  const go = (next: Filters) => {
    location.hash = filtersHref(next).slice(1);
  };
  const toggle = (k: string, on: boolean) => {
    const s = new Set(kinds);
    if (on) s.add(k);
    else s.delete(k);
    setKinds(s);
  };
  return (
    <form
      class="filters history-filters"
      aria-label="History filters"
      onSubmit={(e) => {
        e.preventDefault();
        go({
          since: fromLocalInput(since),
          until: fromLocalInput(until),
          kinds: [...kinds],
          selector: selector.trim(),
          oldestFirst: oldest,
        });
      }}
    >
      <label>
        Since
        <input
          type="datetime-local"
          step={1}
          value={since}
          onInput={(e) => setSince(e.currentTarget.value)}
        />
      </label>
      <label>
        Until
        <input
          type="datetime-local"
          step={1}
          value={until}
          onInput={(e) => setUntil(e.currentTarget.value)}
        />
      </label>
      <label>
        Selector
        <input
          name="selector"
          value={selector}
          placeholder="env=prod"
          spellcheck={false}
          onInput={(e) => setSelector(e.currentTarget.value)}
        />
      </label>
      <label>
        Order
        <select
          value={oldest ? "oldest" : "newest"}
          onChange={(e) => setOldest(e.currentTarget.value === "oldest")}
        >
          <option value="newest">newest first</option>
          <option value="oldest">oldest first</option>
        </select>
      </label>
      <details class="kinds">
        <summary>Kinds{kinds.size > 0 ? ` (${kinds.size})` : ": all"}</summary>
        {KIND_GROUPS.map((g) => (
          <fieldset key={g.title}>
            <legend>{g.title}</legend>
            {g.kinds.map((k) => (
              <label key={k} class="check">
                <input
                  type="checkbox"
                  checked={kinds.has(k)}
                  onChange={(e) => toggle(k, e.currentTarget.checked)}
                />
                {k}
              </label>
            ))}
          </fieldset>
        ))}
      </details>
      <button type="submit" class="primary">
        Show
      </button>
      <button
        type="button"
        onClick={() => {
          const now = Date.now();
          go({
            since: now - 7 * DAY,
            until: now,
            kinds: [...kinds],
            selector: selector.trim(),
            oldestFirst: oldest,
          });
        }}
      >
        Last 7 days
      </button>
      {filtered(f) && (
        <a class="button" href={href("history")}>
          Live feed
        </a>
      )}
    </form>
  );
}

/**
 * One page of a filtered ListHistory at a time. The tokens of the pages before are kept, so
 * "Newer" (or "Older", oldest first) goes back without the server's help.
 */
function HistoryPager(props: { filters: Filters }) {
  const f = props.filters;
  const [stack, setStack] = useState<readonly string[]>([""]);
  const [page, setPage] = useState<ListHistoryResponse | undefined>(undefined);
  const [error, setError] = useState("");
  const key = filtersHref(f);
  const token = stack[stack.length - 1] ?? "";
  useEffect(() => {
    let stop = false;
    setPage(undefined);
    query
      .listHistory({
        pageSize: PAGE,
        pageToken: token,
        ...(f.since === undefined ? {} : { since: timestampFromMs(f.since) }),
        ...(f.until === undefined ? {} : { until: timestampFromMs(f.until) }),
        kinds: [...f.kinds],
        selector: f.selector,
        oldestFirst: f.oldestFirst,
      })
      .then(
        (r) => {
          if (stop) return;
          setPage(r);
          setError("");
        },
        (e: unknown) => {
          noteReadError(e);
          if (!stop) setError(messageOf(e));
        },
      );
    return () => {
      stop = true;
    };
  }, [key, token]);
  const next = page?.nextPageToken ?? "";
  const [forward, back] = f.oldestFirst ? ["Newer", "Older"] : ["Older", "Newer"];
  const pager = (
    <div class="pager">
      <button type="button" disabled={stack.length <= 1} onClick={() => setStack((s) => s.slice(0, -1))}>
        {back}
      </button>
      <span class="muted">Page {stack.length}</span>
      <button type="button" disabled={next === ""} onClick={() => setStack((s) => [...s, next])}>
        {forward}
      </button>
    </div>
  );
  return (
    <div class="history">
      {error !== "" && <p class="error">{error}</p>}
      {page === undefined && error === "" && <p class="muted">Reading…</p>}
      {page !== undefined && page.entries.length === 0 && (
        <p class="muted">
          {next === "" ? "Nothing matches on this page or after it." : "Nothing on this page."}
        </p>
      )}
      {pager}
      <HistoryTable entries={page?.entries ?? []} showObject />
      {pager}
    </div>
  );
}

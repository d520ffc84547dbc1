import { timestampMs } from "@bufbuild/protobuf/wkt";
import { useEffect, useState } from "preact/hooks";
import type { HistoryEntry } from "../../../api/gen/svc/v1/query_service_pb.js";
import { noteReadError } from "../access.js";
import { messageOf, query } from "../api.js";
import { objectHref, stateName, stateTypeName, when } from "../format.js";
import { StateBadge } from "./status-columns.js";

/**
 * History from ListHistory, newest first: the global feed, or one object's. The first page is
 * re-read every 3 s (new entries appear on top); "Older" follows the page token.
 */
export function HistoryList(props: { host?: string; service?: string; pageSize?: number }) {
  const { host, service } = props;
  const pageSize = props.pageSize ?? 100;
  const [head, setHead] = useState<readonly HistoryEntry[]>([]);
  const [older, setOlder] = useState<readonly HistoryEntry[]>([]);
  const [token, setToken] = useState("");
  const [error, setError] = useState("");
  const [loaded, setLoaded] = useState(false);

  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setOlder([]);
    setLoaded(false);
    const read = async () => {
      try {
        const res = await query.listHistory({ host, service, pageSize });
        if (stop) return;
        setHead(res.entries);
        setToken((t) => (t === "" ? res.nextPageToken : t));
        setError("");
        setLoaded(true);
      } catch (e) {
        noteReadError(e);
        if (!stop) setError(messageOf(e));
      }
      if (!stop) timer = setTimeout(read, 3000);
    };
    void read();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [host, service, pageSize]);

  async function more() {
    try {
      const res = await query.listHistory({ host, service, pageSize, pageToken: token });
      setOlder((o) => [...o, ...res.entries]);
      setToken(res.nextPageToken);
    } catch (e) {
      setError(messageOf(e));
    }
  }

  // The head is re-read; older pages are kept, minus anything the head now holds.
  const newest = head[head.length - 1]?.sequence;
  const entries = [...head, ...older.filter((e) => newest === undefined || e.sequence < newest)];
  return (
    <div class="history">
      {error !== "" && <p class="error">{error}</p>}
      {loaded && entries.length === 0 && <p class="muted">No history yet.</p>}
      <HistoryTable entries={entries} showObject={host === undefined} />
      {token !== "" && (
        <button type="button" onClick={more}>
          Older
        </button>
      )}
    </div>
  );
}

/** History entries as a table: when, event, (object), state, output or comment. */
export function HistoryTable(props: { entries: readonly HistoryEntry[]; showObject: boolean }) {
  const { entries, showObject } = props;
  return (
    <table class="plain">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Event</th>
          {showObject && <th scope="col">Object</th>}
          <th scope="col">State</th>
          <th scope="col">Output / comment</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <tr key={String(e.sequence)}>
            <td class="nowrap">{when(e.at === undefined ? 0 : timestampMs(e.at))}</td>
            <td>{e.kind}</td>
            {showObject && (
              <td>
                <a href={objectHref(e.host, e.service)}>
                  {e.host}
                  {e.service === undefined ? "" : ` / ${e.service}`}
                </a>
              </td>
            )}
            <td class="nowrap">
              {e.kind === "StateChange" ? (
                <>
                  <StateBadge state={e.state} /> {stateTypeName(e.stateType)} {e.attempt > 0 ? e.attempt : ""}
                </>
              ) : e.state !== 0 ? (
                stateName(e.state)
              ) : (
                ""
              )}
            </td>
            <td class="wrap">
              {e.output}
              {e.author !== "" && (
                <span class="muted">
                  {" "}
                  {e.author}: {e.comment}
                </span>
              )}
              {e.author === "" && e.comment !== "" && <span class="muted"> {e.comment}</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

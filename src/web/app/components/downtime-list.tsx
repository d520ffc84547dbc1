import { type Duration, type Timestamp, timestampMs } from "@bufbuild/protobuf/wkt";
import { useState } from "preact/hooks";
import { type Downtime, DowntimeState } from "../../../api/gen/svc/v1/query_service_pb.js";
import { noteCommandError } from "../access.js";
import { command, messageOf, query } from "../api.js";
import { objectHref, when } from "../format.js";
import { refreshAll } from "../status-source.js";
import { formatSpan, usePoll } from "./poll.js";

const ms = (t: Timestamp | undefined) => (t === undefined ? 0 : timestampMs(t));
const durationMs = (d: Duration | undefined) =>
  d === undefined ? 0 : Number(d.seconds) * 1000 + Math.trunc(d.nanos / 1e6);

/** How many of a downtime's objects a row names before "and N more". */
const OBJECTS_SHOWN = 3;

/**
 * Downtimes from ListDowntimes, scheduled and active: for one object (host alone: the host and its
 * services), a selector's objects, or all; re-read every 3 s. Each can be deleted by id.
 */
export function DowntimeList(props: {
  host?: string | undefined;
  service?: string | undefined;
  selector?: string;
  state?: DowntimeState;
  canDelete: boolean;
}) {
  const { host, service, selector, state, canDelete } = props;
  const [pageSize, setPageSize] = useState(100);
  const [failed, setFailed] = useState("");
  const { data, error, reload } = usePoll(
    () =>
      query.listDowntimes({
        host,
        service,
        selector: selector ?? "",
        state: state ?? DowntimeState.UNSPECIFIED,
        pageSize,
      }),
    [host, service, selector, state, pageSize],
  );
  async function del(id: string) {
    setFailed("");
    try {
      await command.deleteDowntime({ id });
      reload();
      refreshAll();
    } catch (e) {
      noteCommandError(e);
      setFailed(messageOf(e));
    }
  }
  const rows = data?.downtimes ?? [];
  return (
    <div class="downtime-list">
      {error !== "" && <p class="error">{error}</p>}
      {failed !== "" && (
        <p class="error" role="alert">
          {failed}
        </p>
      )}
      {data !== undefined && rows.length === 0 && <p class="muted">No downtimes scheduled.</p>}
      {rows.length > 0 && (
        <table class="plain" aria-label="Downtimes">
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">Window</th>
              <th scope="col">Kind</th>
              <th scope="col">Objects</th>
              <th scope="col">Author / comment</th>
              <th scope="col">Id</th>
              {canDelete && <th scope="col" aria-label="Actions" />}
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <DowntimeRow key={d.id} d={d} canDelete={canDelete} onDelete={() => void del(d.id)} />
            ))}
          </tbody>
        </table>
      )}
      {data !== undefined && data.nextPageToken !== "" && (
        <button type="button" onClick={() => setPageSize((n) => Math.min(1000, n + 100))}>
          More ({data.totalSize} in all)
        </button>
      )}
    </div>
  );
}

function DowntimeRow(props: { d: Downtime; canDelete: boolean; onDelete: () => void }) {
  const { d } = props;
  const active = d.state === DowntimeState.ACTIVE;
  return (
    <tr data-downtime={d.id}>
      <td class="nowrap">
        {active ? <strong>active</strong> : d.flexible ? "waiting for a problem" : "scheduled"}
        {active && d.endsAt !== undefined && <> until {when(ms(d.endsAt))}</>}
      </td>
      <td class="nowrap">
        {when(ms(d.start))} – {when(ms(d.end))}
      </td>
      <td>{d.flexible ? `flexible, ${formatSpan(durationMs(d.duration))}` : "fixed"}</td>
      <td>
        {d.objects.slice(0, OBJECTS_SHOWN).map((o, i) => (
          <span key={`${o.host}!${o.service ?? ""}`}>
            {i > 0 && ", "}
            <a href={objectHref(o.host, o.service)}>
              {o.service === undefined ? o.host : `${o.host}/${o.service}`}
            </a>
          </span>
        ))}
        {d.objects.length > OBJECTS_SHOWN && ` and ${d.objects.length - OBJECTS_SHOWN} more`}
      </td>
      <td>
        <strong>{d.author}</strong> {d.comment}
      </td>
      <td>
        <code>{d.id}</code>
      </td>
      {props.canDelete && (
        <td>
          <button type="button" onClick={props.onDelete}>
            Delete
          </button>
        </td>
      )}
    </tr>
  );
}

import { type Timestamp, timestampMs } from "@bufbuild/protobuf/wkt";
import { useEffect, useState } from "preact/hooks";
import type { ObjectStatus } from "../../../api/gen/svc/v1/query_service_pb.js";
import { noteReadError } from "../access.js";
import { messageOf, query } from "../api.js";
import type { PendingAction } from "../components/action-dialog.js";
import { CheckNowButton } from "../components/check-now.js";
import { CommentList } from "../components/comment-list.js";
import { CustomNotificationAction } from "../components/custom-notification.js";
import { DowntimeList } from "../components/downtime-list.js";
import { HistoryList } from "../components/history-list.js";
import { ObjectSwitches, switchedOffNames } from "../components/object-switches.js";
import { OverTime } from "../components/over-time.js";
import { Flags, StateBadge } from "../components/status-columns.js";
import { isProblem, objectHref, since, stateTypeName, when } from "../format.js";
import { useNow } from "../now.js";

const ms = (t: Timestamp | undefined) => (t === undefined ? 0 : timestampMs(t));

/**
 * One host or service: state, output, long output, perfdata, acknowledgement, comments, downtimes
 * and its history; for a host also its services. Re-read every 2 s.
 */
export function ObjectPage(props: {
  host: string;
  service: string | undefined;
  range: string;
  onAction: ((a: PendingAction) => void) | undefined;
}) {
  const { host, service, onAction } = props;
  const [statuses, setStatuses] = useState<readonly ObjectStatus[] | undefined>(undefined);
  const [error, setError] = useState("");
  const now = useNow();

  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setStatuses(undefined);
    const read = async () => {
      try {
        const res = await query.listStatus({ host, service, pageSize: 1000 });
        if (stop) return;
        setStatuses(res.statuses);
        setError("");
      } catch (e) {
        noteReadError(e);
        if (!stop) setError(messageOf(e));
      }
      if (!stop) timer = setTimeout(read, 2000);
    };
    void read();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [host, service]);

  const s = statuses?.find((x) => x.service === service);
  const title = service === undefined ? host : `${service} on ${host}`;
  const target = { kind: "object" as const, host, service };
  return (
    <section aria-labelledby="object-title">
      <p class="crumbs">
        <a href={objectHref(host, undefined)}>{host}</a>
        {service !== undefined && <> / {service}</>}
      </p>
      <h1 id="object-title">{title}</h1>
      {error !== "" && <p class="error">{error}</p>}
      {statuses !== undefined && s === undefined && <p class="error">No such object in the configuration.</p>}
      {s !== undefined && (
        <>
          <div class="state-line">
            <StateBadge state={s.state} />
            <span>
              {stateTypeName(s.stateType)} {s.attempt}/{s.maxAttempts} · since{" "}
              {since(ms(s.lastStateChange), now)} · checked {since(ms(s.lastCheck), now)} ago · {s.checkType}
              {s.checkedBy !== "" && ` · checked by ${s.checkedBy}`}
              {s.flapping && ` · flapping ${s.flapPercent.toFixed(0)} %`}
            </span>
            <Flags
              row={{
                acked: s.acknowledgement !== undefined,
                inDowntime: s.inDowntime,
                flapping: s.flapping,
                off: switchedOffNames(s),
              }}
            />
          </div>
          <ObjectSwitches host={host} service={service} status={s} canWrite={onAction !== undefined} />
          {onAction !== undefined && (
            <div class="bulk">
              {isProblem(s.state) && s.acknowledgement === undefined && (
                <button type="button" onClick={() => onAction({ kind: "ack", target })}>
                  Acknowledge
                </button>
              )}
              {s.acknowledgement !== undefined && (
                <button type="button" onClick={() => onAction({ kind: "unack", target })}>
                  Remove acknowledgement
                </button>
              )}
              <button type="button" onClick={() => onAction({ kind: "downtime", target })}>
                Schedule downtime
              </button>
              <CustomNotificationAction host={host} service={service} />
              {s.checkType !== "passive" && <CheckNowButton target={target} />}
            </div>
          )}
          <OverTime
            key={`${host}\u0000${service ?? ""}\u0000${props.range}`}
            host={host}
            service={service}
            range={props.range}
          />
          <h2>Output</h2>
          <pre class="output-block">{s.output || "(none)"}</pre>
          {s.longOutput !== "" && (
            <>
              <h3>Long output</h3>
              <pre class="output-block">{s.longOutput}</pre>
            </>
          )}
          {s.perfdata.length > 0 && (
            <>
              <h2>Performance data</h2>
              <table class="plain">
                <thead>
                  <tr>
                    <th scope="col">Label</th>
                    <th scope="col">Value</th>
                    <th scope="col">Warn</th>
                    <th scope="col">Crit</th>
                    <th scope="col">Min</th>
                    <th scope="col">Max</th>
                  </tr>
                </thead>
                <tbody>
                  {s.perfdata.map((p) => (
                    <tr key={p.label}>
                      <td>{p.label}</td>
                      <td>
                        {p.value}
                        {p.uom}
                      </td>
                      <td>{p.warn}</td>
                      <td>{p.crit}</td>
                      <td>{p.min ?? ""}</td>
                      <td>{p.max ?? ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
          <h2>Acknowledgement</h2>
          {s.acknowledgement === undefined ? (
            <p class="muted">Not acknowledged.</p>
          ) : (
            <p>
              By <strong>{s.acknowledgement.author}</strong> at {when(ms(s.acknowledgement.setAt))}
              {s.acknowledgement.sticky ? " (sticky)" : ""}: {s.acknowledgement.comment}
            </p>
          )}
          <h2>Comments</h2>
          <CommentList host={host} service={service} canEdit={onAction !== undefined} />
          <h2>Downtimes</h2>
          <p>{s.inDowntime ? "In downtime now." : "Not in downtime now."}</p>
          <DowntimeList host={host} service={service} canDelete={onAction !== undefined} />
          {Object.keys(s.labels).length > 0 && (
            <>
              <h2>Labels</h2>
              <p class="labels">
                {Object.entries(s.labels).map(([k, v]) => (
                  <code key={k}>
                    {k}={v}
                  </code>
                ))}
              </p>
            </>
          )}
        </>
      )}
      {service === undefined && statuses !== undefined && statuses.length > 1 && (
        <>
          <h2>Services</h2>
          <ul class="services">
            {statuses
              .filter((x) => x.service !== undefined)
              .map((x) => (
                <li key={x.service}>
                  <StateBadge state={x.state} /> <a href={objectHref(host, x.service)}>{x.service}</a>{" "}
                  <span class="muted">{x.output}</span>
                </li>
              ))}
          </ul>
        </>
      )}
      <h2>History</h2>
      <HistoryList host={host} {...(service === undefined ? {} : { service })} pageSize={50} />
    </section>
  );
}

import { isProblem, objectHref, since, stateName, stateTypeName } from "../format.js";
import type { Row } from "../status-source.js";
import type { PendingAction } from "./action-dialog.js";
import type { Column } from "./virtual-table.js";

/** A state as a coloured badge (the colour also has the state's name, for screen readers and print). */
export function StateBadge(props: { state: Row["state"] }) {
  const n = stateName(props.state);
  return <span class={`badge st-${n.toLowerCase()}`}>{n}</span>;
}

/** The acknowledged / in downtime / flapping marks. */
export function Flags(props: { row: Pick<Row, "acked" | "inDowntime" | "flapping"> & { off?: string } }) {
  const { row } = props;
  return (
    <span class="flags">
      {row.acked && <span class="flag ack">ack</span>}
      {row.inDowntime && <span class="flag dt">downtime</span>}
      {row.flapping && <span class="flag flap">flapping</span>}
      {row.off !== undefined && row.off !== "" && (
        <span class="flag off" title={`switched off: ${row.off}`}>
          off: {row.off}
        </span>
      )}
    </span>
  );
}

/** The buttons a row offers: acknowledge or remove it, schedule a downtime. */
export function RowActions(props: { row: Row; onAction: (a: PendingAction) => void }) {
  const { row, onAction } = props;
  const target = { kind: "object" as const, host: row.host, service: row.service };
  const name = row.service === undefined ? row.host : `${row.host} ${row.service}`;
  return (
    <span class="actions">
      {isProblem(row.state) && !row.acked && (
        <button
          type="button"
          aria-label={`Acknowledge ${name}`}
          onClick={() => onAction({ kind: "ack", target })}
        >
          Ack
        </button>
      )}
      {row.acked && (
        <button
          type="button"
          aria-label={`Remove acknowledgement of ${name}`}
          onClick={() => onAction({ kind: "unack", target })}
        >
          Unack
        </button>
      )}
      <button
        type="button"
        aria-label={`Schedule downtime for ${name}`}
        onClick={() => onAction({ kind: "downtime", target })}
      >
        Downtime
      </button>
    </span>
  );
}

/** The status table's columns; the action column only when commands are allowed. */
export function statusColumns(
  now: number,
  onAction: ((a: PendingAction) => void) | undefined,
): Column<Row>[] {
  const cols: Column<Row>[] = [
    {
      id: "state",
      title: "State",
      width: "7.5rem",
      sortable: true,
      cell: (r) => <StateBadge state={r.state} />,
    },
    {
      id: "host",
      title: "Host",
      width: "minmax(7rem, 12rem)",
      sortable: true,
      cell: (r) => <a href={objectHref(r.host, undefined)}>{r.host}</a>,
    },
    {
      id: "service",
      title: "Service",
      width: "minmax(7rem, 12rem)",
      sortable: true,
      cell: (r) =>
        r.service === undefined ? <i>host</i> : <a href={objectHref(r.host, r.service)}>{r.service}</a>,
    },
    {
      id: "duration",
      title: "Since",
      width: "6rem",
      sortable: true,
      cell: (r) => <span title={new Date(r.lastChange).toString()}>{since(r.lastChange, now)}</span>,
    },
    {
      id: "attempt",
      title: "Attempt",
      width: "6.5rem",
      wide: true,
      cell: (r) => `${r.attempt}/${r.maxAttempts} ${stateTypeName(r.stateType)}`,
    },
    {
      id: "output",
      title: "Output",
      width: "minmax(10rem, 3fr)",
      sortable: true,
      cell: (r) => (
        <span class="output" title={r.output}>
          <Flags row={r} /> {r.output}
        </span>
      ),
    },
  ];
  if (onAction !== undefined) {
    cols.push({
      id: "actions",
      title: "Actions",
      width: "13rem",
      cell: (r) => <RowActions row={r} onAction={onAction} />,
    });
  }
  return cols;
}

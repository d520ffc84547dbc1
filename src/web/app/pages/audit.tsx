import { timestampMs } from "@bufbuild/protobuf/wkt";
import { useEffect, useState } from "preact/hooks";
import type { AuditRecord } from "../../../api/gen/svc/v1/types_pb.js";
import { AuditOutcome, AuditSource, Role } from "../../../api/gen/svc/v1/types_pb.js";
import { access } from "../access.js";
import { admin, messageOf } from "../api.js";
import { when } from "../format.js";
import { useStore } from "../store.js";
import { AdminGate } from "./admin-gate.js";

/** The audit list (admins): ListAuditRecords, newest first, re-read every 5 s. */
export function AuditPage() {
  const a = useStore(access);
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit</h1>
      <AdminGate access={a.admin}>
        <AuditList />
      </AdminGate>
    </section>
  );
}

function AuditList() {
  const [records, setRecords] = useState<readonly AuditRecord[]>([]);
  const [error, setError] = useState("");
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        const res = await admin.listAuditRecords({ limit: 500 });
        if (stop) return;
        setRecords(res.records);
        setError("");
      } catch (e) {
        if (!stop) setError(messageOf(e));
      }
      if (!stop) timer = setTimeout(read, 5000);
    };
    void read();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, []);
  return (
    <>
      {error !== "" && <p class="error">{error}</p>}
      <table class="plain">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Source</th>
            <th scope="col">Call</th>
            <th scope="col">Outcome</th>
            <th scope="col">Command</th>
          </tr>
        </thead>
        <tbody>
          {records.map((r, i) => (
            <tr key={i}>
              <td class="nowrap">{when(r.at === undefined ? 0 : timestampMs(r.at))}</td>
              <td>
                {r.principal === undefined
                  ? "(unauthenticated)"
                  : r.principal.role === Role.UNSPECIFIED
                    ? r.principal.name
                    : `${r.principal.name} (${Role[r.principal.role].toLowerCase()})`}
                <span class="muted"> {r.peer}</span>
              </td>
              <td>{AuditSource[r.source].toLowerCase()}</td>
              <td>{r.rpc}</td>
              <td>{AuditOutcome[r.outcome].toLowerCase()}</td>
              <td class="wrap">
                <code>{r.commandJson}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {records.length === 0 && error === "" && <p class="muted">No audit records.</p>}
    </>
  );
}

import { Code, ConnectError } from "@connectrpc/connect";
import type { PlanSection } from "../../../api/gen/svc/v1/admin_service_pb.js";
import { type ConfigDiagnostic, ConfigDiagnosticsSchema } from "../../../api/gen/svc/v1/types_pb.js";

/** The diagnostics of a rejected document, or undefined when the error is something else. */
export function diagnosticsOf(e: unknown): ConfigDiagnostic[] | undefined {
  if (!(e instanceof ConnectError) || e.code !== Code.InvalidArgument) return undefined;
  return e.findDetails(ConfigDiagnosticsSchema).flatMap((d) => d.diagnostics);
}

/** What applying the document would change, per kind (PlanConfig). */
export function PlanTable(props: { plan: readonly PlanSection[] }) {
  const changed = props.plan.filter((p) => p.added + p.removed + p.changed > 0);
  if (changed.length === 0) return <p class="muted">Applying it would change nothing.</p>;
  const names = (label: string, ns: readonly string[]) =>
    ns.length === 0 ? undefined : (
      <div>
        {label}: {ns.join(", ")}
      </div>
    );
  return (
    <table class="plain plan" aria-label="Plan of changes">
      <thead>
        <tr>
          <th scope="col">Kind</th>
          <th scope="col">Added</th>
          <th scope="col">Removed</th>
          <th scope="col">Changed</th>
          <th scope="col">Names</th>
        </tr>
      </thead>
      <tbody>
        {changed.map((p) => (
          <tr key={p.kind}>
            <th scope="row">{p.kind}</th>
            <td>{p.added}</td>
            <td>{p.removed}</td>
            <td>{p.changed}</td>
            <td class="small">
              {names("added", p.addedNames)}
              {names("removed", p.removedNames)}
              {names("changed", p.changedNames)}
              {p.truncated && <div class="muted">(the first 100 of each list)</div>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

import { DowntimeState } from "../../../api/gen/svc/v1/query_service_pb.js";
import { DowntimeList } from "../components/downtime-list.js";
import { href, type Route, replaceRoute } from "../router.js";

const STATES: Record<string, DowntimeState> = {
  "": DowntimeState.UNSPECIFIED,
  active: DowntimeState.ACTIVE,
  future: DowntimeState.FUTURE,
};

/** Every downtime (ListDowntimes), narrowed by state and selector from the address. */
export function DowntimesPage(props: { route: Route; canDelete: boolean }) {
  const state = props.route.params.get("state") ?? "";
  const selector = props.route.params.get("selector") ?? "";
  const go = (next: { state?: string; selector?: string }) =>
    replaceRoute(href("downtimes", { state, selector, ...next }));
  return (
    <section aria-labelledby="downtimes-title">
      <h1 id="downtimes-title">Downtimes</h1>
      <form class="inline" onSubmit={(e) => e.preventDefault()}>
        <label>
          State
          <select value={state} onChange={(e) => go({ state: e.currentTarget.value })}>
            <option value="">active and scheduled</option>
            <option value="active">active</option>
            <option value="future">scheduled</option>
          </select>
        </label>
        <label>
          Selector
          <input
            value={selector}
            placeholder="env=prod"
            onChange={(e) => go({ selector: e.currentTarget.value })}
          />
        </label>
      </form>
      <DowntimeList
        selector={selector}
        state={STATES[state] ?? DowntimeState.UNSPECIFIED}
        canDelete={props.canDelete}
      />
    </section>
  );
}

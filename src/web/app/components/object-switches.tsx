import { useState } from "preact/hooks";
import type { ObjectStatus } from "../../../api/gen/svc/v1/query_service_pb.js";
import { noteCommandError } from "../access.js";
import { command, messageOf, session } from "../api.js";
import { refreshAll } from "../status-source.js";
import { useStore } from "../store.js";

/** The run-time switches (SetObjectFlags), as the dashboard names them. */
type Switch = "activeChecks" | "passiveChecks" | "notifications" | "flapDetection";

const SWITCHES: readonly {
  readonly name: Switch;
  readonly label: string;
  readonly off: keyof ObjectStatus;
}[] = [
  { name: "activeChecks", label: "Active checks", off: "activeChecksDisabled" },
  { name: "passiveChecks", label: "Passive checks", off: "passiveChecksDisabled" },
  { name: "notifications", label: "Notifications", off: "notificationsDisabled" },
  { name: "flapDetection", label: "Flap detection", off: "flapDetectionDisabled" },
];

/** The short names of the switches a status has off ("" when none): the status list's mark. */
export function switchedOffNames(s: Pick<ObjectStatus, (typeof SWITCHES)[number]["off"]>): string {
  return SWITCHES.filter((w) => s[w.off as keyof typeof s] === true)
    .map((w) => w.label.toLowerCase())
    .join(", ");
}

const AUTHOR_KEY = "lookout.author";

/** Who a switch command is by: who signed in, else the author the action dialog remembers. */
function useAuthor(): string {
  const signedIn = useStore(session);
  return signedIn?.name ?? localStorage.getItem(AUTHOR_KEY) ?? "dashboard";
}

/**
 * The object page's four switches as toggles: each change is one SetObjectFlags for the object;
 * the toggle shows the server's answer once the page reads the status again. Read-only (disabled)
 * for a caller who may not write.
 */
export function ObjectSwitches(props: {
  host: string;
  service: string | undefined;
  status: ObjectStatus;
  canWrite: boolean;
}) {
  const { host, service, status, canWrite } = props;
  const author = useAuthor();
  const [busy, setBusy] = useState<Switch | undefined>(undefined);
  const [error, setError] = useState("");
  async function set(name: Switch, on: boolean) {
    setBusy(name);
    setError("");
    try {
      await command.setObjectFlags({
        target: { kind: { case: "object", value: { host, service } } },
        [name]: on,
        author,
      });
      refreshAll();
    } catch (e) {
      noteCommandError(e);
      setError(messageOf(e));
    } finally {
      setBusy(undefined);
    }
  }
  return (
    <fieldset class="switches" aria-label="Switches">
      {SWITCHES.map((w) => {
        const on = status[w.off] !== true;
        return (
          <label key={w.name} class={on ? "switch on" : "switch off"}>
            <input
              type="checkbox"
              role="switch"
              aria-checked={on}
              checked={on}
              disabled={!canWrite || busy !== undefined}
              onChange={(e) => void set(w.name, e.currentTarget.checked)}
            />
            {w.label}
          </label>
        );
      })}
      {error !== "" && <span class="error">{error}</span>}
    </fieldset>
  );
}

/**
 * The status page's bulk action: one switch turned off or on for every object a selector matches
 * (one SetObjectFlags), after a confirmation that says how many objects.
 */
export function BulkSwitches(props: { selector: string; total: number }) {
  const { selector, total } = props;
  const author = useAuthor();
  const [which, setWhich] = useState<Switch>("notifications");
  const [note, setNote] = useState("");
  async function set(on: boolean) {
    const label = SWITCHES.find((w) => w.name === which)?.label ?? which;
    const what = selector.trim() === "" ? "every object" : `every object matching ${selector}`;
    if (!window.confirm(`Turn ${label.toLowerCase()} ${on ? "on" : "off"} for ${what} (${total})?`)) return;
    setNote("");
    try {
      await command.setObjectFlags({
        target: { kind: { case: "selector", value: selector } },
        [which]: on,
        author,
      });
      setNote(`${label} turned ${on ? "on" : "off"}.`);
      refreshAll();
    } catch (e) {
      noteCommandError(e);
      setNote(messageOf(e));
    }
  }
  return (
    <span class="bulk-switches">
      <select aria-label="Switch" value={which} onChange={(e) => setWhich(e.currentTarget.value as Switch)}>
        {SWITCHES.map((w) => (
          <option key={w.name} value={w.name}>
            {w.label}
          </option>
        ))}
      </select>
      <button type="button" onClick={() => void set(false)}>
        Turn off
      </button>
      <button type="button" onClick={() => void set(true)}>
        Turn on
      </button>
      {note !== "" && (
        <span class="muted" role="status">
          {note}
        </span>
      )}
    </span>
  );
}

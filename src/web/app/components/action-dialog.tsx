import { durationFromMs, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { useEffect, useRef, useState } from "preact/hooks";
import { noteCommandError } from "../access.js";
import { command, messageOf, session } from "../api.js";
import { refreshAll } from "../status-source.js";
import { useStore } from "../store.js";

/** What a command applies to: one object, or every object a selector matches. */
export type ActionTarget =
  | { readonly kind: "object"; readonly host: string; readonly service?: string | undefined }
  | { readonly kind: "selector"; readonly selector: string };

export type ActionKind = "ack" | "unack" | "downtime";

/** The pending action shown in the dialog, or undefined when closed. */
export interface PendingAction {
  readonly kind: ActionKind;
  readonly target: ActionTarget;
}

export function describeTarget(t: ActionTarget): string {
  switch (t.kind) {
    case "object":
      return t.service === undefined ? t.host : `${t.service} on ${t.host}`;
    case "selector":
      return t.selector.trim() === "" ? "every object" : `every object matching ${t.selector}`;
    default:
      return unreachable(t);
  }
}

function apiTarget(t: ActionTarget) {
  switch (t.kind) {
    case "object":
      return { kind: { case: "object" as const, value: { host: t.host, service: t.service } } };
    case "selector":
      return { kind: { case: "selector" as const, value: t.selector } };
    default:
      return unreachable(t);
  }
}

const AUTHOR_KEY = "lookout.author";

/** Local `YYYY-MM-DDTHH:MM` for a datetime-local input. */
function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

const TITLES: Record<ActionKind, string> = {
  ack: "Acknowledge problem",
  unack: "Remove acknowledgement",
  downtime: "Schedule downtime",
};

/**
 * The one dialog for commands (a native <dialog>: Escape closes it, focus stays inside). It calls
 * CommandService and, once the server has enqueued the command, asks every table to read again.
 */
export function ActionDialog(props: { action: PendingAction | undefined; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const { action, onClose } = props;
  // Signed in, the author is who signed in (the server records that name whatever is sent).
  const signedIn = useStore(session);
  const [typed, setAuthor] = useState(localStorage.getItem(AUTHOR_KEY) ?? "dashboard");
  const author = signedIn?.name ?? typed;
  const [comment, setComment] = useState("");
  const [sticky, setSticky] = useState(false);
  const [notify, setNotify] = useState(true);
  const [start, setStart] = useState(localInput(Date.now()));
  const [end, setEnd] = useState(localInput(Date.now() + 2 * 3600_000));
  const [flexible, setFlexible] = useState(false);
  const [minutes, setMinutes] = useState("60");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");

  useEffect(() => {
    const d = ref.current;
    if (d === null) return;
    if (action !== undefined && !d.open) {
      setError("");
      setComment("");
      setNotify(true);
      setStart(localInput(Date.now()));
      setEnd(localInput(Date.now() + 2 * 3600_000));
      setFlexible(false);
      d.showModal();
    } else if (action === undefined && d.open) d.close();
  }, [action]);

  async function submit(e: Event) {
    e.preventDefault();
    if (action === undefined) return;
    setBusy(true);
    setError("");
    if (signedIn === undefined) localStorage.setItem(AUTHOR_KEY, author);
    const target = apiTarget(action.target);
    try {
      switch (action.kind) {
        case "ack":
          await command.acknowledgeProblem({ target, sticky, author, comment, notify });
          break;
        case "unack":
          await command.removeAcknowledgement({ target });
          break;
        case "downtime": {
          const s = new Date(start).getTime();
          const en = new Date(end).getTime();
          if (!(en > s)) throw new Error("the end must be after the start");
          const m = Number(minutes);
          if (flexible && !(m > 0)) throw new Error("a flexible downtime needs a duration in minutes");
          await command.scheduleDowntime({
            target,
            start: timestampFromMs(s),
            end: timestampFromMs(en),
            author,
            comment,
            ...(flexible ? { flexible: true, duration: durationFromMs(Math.round(m * 60_000)) } : {}),
          });
          break;
        }
        default:
          unreachable(action.kind);
      }
      refreshAll();
      onClose();
    } catch (err) {
      noteCommandError(err);
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <dialog ref={ref} class="dialog" onClose={onClose} aria-labelledby="action-title">
      {action !== undefined && (
        <form onSubmit={submit} method="dialog">
          <h2 id="action-title">{TITLES[action.kind]}</h2>
          <p class="target">{describeTarget(action.target)}</p>
          {action.kind !== "unack" && (
            <>
              <label>
                Author
                <input
                  value={author}
                  onInput={(e) => setAuthor(e.currentTarget.value)}
                  readOnly={signedIn !== undefined}
                  required
                />
              </label>
              <label>
                Comment
                <input
                  name="comment"
                  value={comment}
                  onInput={(e) => setComment(e.currentTarget.value)}
                  required
                />
              </label>
            </>
          )}
          {action.kind === "ack" && (
            <label class="check">
              <input type="checkbox" checked={sticky} onChange={(e) => setSticky(e.currentTarget.checked)} />
              Sticky (until recovery, not just this problem state)
            </label>
          )}
          {action.kind === "ack" && (
            <label class="check">
              <input type="checkbox" checked={notify} onChange={(e) => setNotify(e.currentTarget.checked)} />
              Notify contacts (those told of the problem get an ACKNOWLEDGEMENT)
            </label>
          )}
          {action.kind === "downtime" && (
            <div class="row">
              <label>
                Start
                <input type="datetime-local" value={start} onInput={(e) => setStart(e.currentTarget.value)} />
              </label>
              <label>
                End
                <input type="datetime-local" value={end} onInput={(e) => setEnd(e.currentTarget.value)} />
              </label>
            </div>
          )}
          {action.kind === "downtime" && (
            <div class="row">
              <label class="check">
                <input
                  type="checkbox"
                  name="flexible"
                  checked={flexible}
                  onChange={(e) => setFlexible(e.currentTarget.checked)}
                />
                Flexible (starts when a problem starts, between start and end)
              </label>
              {flexible && (
                <label>
                  Duration (minutes)
                  <input
                    type="number"
                    name="duration"
                    min="1"
                    value={minutes}
                    onInput={(e) => setMinutes(e.currentTarget.value)}
                    required
                  />
                </label>
              )}
            </div>
          )}
          {error !== "" && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          <div class="buttons">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" class="primary" disabled={busy}>
              {TITLES[action.kind]}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}

function unreachable(x: never): never {
  throw new Error(`unexpected ${String(x)}`);
}

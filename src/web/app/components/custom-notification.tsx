import { useEffect, useRef, useState } from "preact/hooks";
import { noteCommandError } from "../access.js";
import { command, messageOf, session } from "../api.js";
import { useStore } from "../store.js";

const AUTHOR_KEY = "lookout.author";

/**
 * "Send custom notification" on the object page: a button and its own dialog (author, comment,
 * force) that call SendCustomNotification. The policy's contacts get a CUSTOM notification; unless
 * forced, a downtime, an acknowledgement, flapping or the policy's period suppress it
 * (docs/notifications.md, "Custom notifications").
 */
export function CustomNotificationAction(props: { host: string; service: string | undefined }) {
  const { host, service } = props;
  const ref = useRef<HTMLDialogElement>(null);
  const signedIn = useStore(session);
  const [open, setOpen] = useState(false);
  const [typed, setAuthor] = useState(localStorage.getItem(AUTHOR_KEY) ?? "dashboard");
  const author = signedIn?.name ?? typed;
  const [comment, setComment] = useState("");
  const [force, setForce] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [sent, setSent] = useState(false);

  useEffect(() => {
    const d = ref.current;
    if (d === null) return;
    if (open && !d.open) {
      setError("");
      setComment("");
      setForce(false);
      d.showModal();
    } else if (!open && d.open) d.close();
  }, [open]);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError("");
    if (signedIn === undefined) localStorage.setItem(AUTHOR_KEY, author);
    try {
      await command.sendCustomNotification({
        target: { kind: { case: "object", value: { host, service } } },
        author,
        comment,
        force,
      });
      setSent(true);
      setOpen(false);
    } catch (err) {
      noteCommandError(err);
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  const what = service === undefined ? host : `${service} on ${host}`;
  return (
    <>
      <button
        type="button"
        onClick={() => {
          setSent(false);
          setOpen(true);
        }}
      >
        Send custom notification
      </button>
      {sent && (
        <span class="muted" role="status">
          Custom notification sent
        </span>
      )}
      <dialog ref={ref} class="dialog" onClose={() => setOpen(false)} aria-labelledby="custom-title">
        {open && (
          <form onSubmit={submit} method="dialog">
            <h2 id="custom-title">Send custom notification</h2>
            <p class="target">{what}</p>
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
            <label class="check">
              <input type="checkbox" checked={force} onChange={(e) => setForce(e.currentTarget.checked)} />
              Force (send even in a downtime, acknowledged, flapping or outside the policy's period)
            </label>
            {error !== "" && (
              <p class="error" role="alert">
                {error}
              </p>
            )}
            <div class="buttons">
              <button type="button" onClick={() => setOpen(false)}>
                Cancel
              </button>
              <button type="submit" class="primary" disabled={busy}>
                Send
              </button>
            </div>
          </form>
        )}
      </dialog>
    </>
  );
}

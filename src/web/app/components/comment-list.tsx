import { type Timestamp, timestampMs } from "@bufbuild/protobuf/wkt";
import { useState } from "preact/hooks";
import { CommentKind } from "../../../api/gen/svc/v1/query_service_pb.js";
import { noteCommandError } from "../access.js";
import { command, messageOf, query, session } from "../api.js";
import { when } from "../format.js";
import { useStore } from "../store.js";
import { usePoll } from "./poll.js";

const ms = (t: Timestamp | undefined) => (t === undefined ? 0 : timestampMs(t));

/** Where the action dialog keeps the author typed when nobody is signed in. */
const AUTHOR_KEY = "lookout.author";

/**
 * One object's comments from ListComments, newest first (a host's own, not its services'):
 * operators' and its acknowledgement's; with `canEdit`, a form to add one and a Delete button on
 * operators' comments (an acknowledgement's goes with the acknowledgement).
 */
export function CommentList(props: { host: string; service: string | undefined; canEdit: boolean }) {
  const { host, service, canEdit } = props;
  const signedIn = useStore(session);
  const [text, setText] = useState("");
  const [failed, setFailed] = useState("");
  const [busy, setBusy] = useState(false);
  const { data, error, reload } = usePoll(
    () => query.listComments({ host, service, pageSize: 200 }),
    [host, service],
  );
  // ListComments of a host includes its services'; the object page shows the object's own.
  const rows = (data?.comments ?? []).filter((c) => c.service === service);
  async function run(f: () => Promise<unknown>) {
    setFailed("");
    setBusy(true);
    try {
      await f();
      reload();
      return true;
    } catch (e) {
      noteCommandError(e);
      setFailed(messageOf(e));
      return false;
    } finally {
      setBusy(false);
    }
  }
  async function add(e: Event) {
    e.preventDefault();
    const author = signedIn?.name ?? localStorage.getItem(AUTHOR_KEY) ?? "dashboard";
    const ok = await run(() =>
      command.addComment({ object: { host, service }, author, comment: text.trim() }),
    );
    if (ok) setText("");
  }
  return (
    <div class="comment-list">
      {error !== "" && <p class="error">{error}</p>}
      {data !== undefined && rows.length === 0 && <p class="muted">No comments.</p>}
      {rows.length > 0 && (
        <ul class="comments" aria-label="Comments">
          {rows.map((c) => (
            <li key={c.id} data-comment={c.id}>
              <span class="muted">{when(ms(c.created))}</span> <strong>{c.author}</strong>
              {c.kind === CommentKind.ACKNOWLEDGEMENT && <span class="muted"> (acknowledgement)</span>}:{" "}
              {c.text}{" "}
              {canEdit && c.kind === CommentKind.USER && (
                <button
                  type="button"
                  disabled={busy}
                  onClick={() => void run(() => command.deleteComment({ id: c.id }))}
                >
                  Delete
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canEdit && (
        <form class="inline" onSubmit={add}>
          <label>
            New comment
            <input name="new-comment" value={text} onInput={(e) => setText(e.currentTarget.value)} required />
          </label>
          <button type="submit" disabled={busy}>
            Add comment
          </button>
        </form>
      )}
      {failed !== "" && (
        <p class="error" role="alert">
          {failed}
        </p>
      )}
    </div>
  );
}

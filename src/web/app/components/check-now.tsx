import { useState } from "preact/hooks";
import { noteCommandError } from "../access.js";
import { command, messageOf } from "../api.js";
import { refreshAll } from "../status-source.js";
import { type ActionTarget, describeTarget } from "./action-dialog.js";

/**
 * "Check now": asks the server to run the target's active checks at once (RescheduleCheck), for
 * one object or every object a selector matches; the table re-reads once the command is enqueued
 * and again a moment later, when the run has had time to report. Says in place what came of it.
 */
export function CheckNowButton(props: { target: ActionTarget; label?: string }) {
  const { target } = props;
  const [note, setNote] = useState<{ error: boolean; text: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  async function run() {
    setBusy(true);
    setNote(undefined);
    try {
      await command.rescheduleCheck({
        target:
          target.kind === "object"
            ? { kind: { case: "object", value: { host: target.host, service: target.service } } }
            : { kind: { case: "selector", value: target.selector } },
      });
      setNote({ error: false, text: "Check requested." });
      refreshAll();
      setTimeout(refreshAll, 1500);
    } catch (e) {
      noteCommandError(e);
      setNote({ error: true, text: messageOf(e) });
    } finally {
      setBusy(false);
    }
  }
  return (
    <>
      <button
        type="button"
        disabled={busy}
        title={`Run the active check of ${describeTarget(target)} now`}
        onClick={() => void run()}
      >
        {props.label ?? "Check now"}
      </button>
      {note !== undefined && (
        <span class={note.error ? "error" : "muted"} role="status">
          {note.text}
        </span>
      )}
    </>
  );
}

import type { AddCommentCommand, DeleteCommentCommand } from "../model/commands.js";
import type { EngineEvent } from "../model/events.js";
import { objectKey } from "../model/object-ref.js";
import type { Comment, EngineState } from "./engine-state.js";
import { eventBase, lookup, type ObjectTable } from "./object-table.js";

/** Adds an operator's comment to one object; an unknown object or a taken id is rejected. */
export function addComment(st: EngineState, cmd: AddCommentCommand, out: EngineEvent[]): void {
  const at = cmd.at;
  const i = lookup(st.objects, cmd.object.host, cmd.object.service);
  if (i === undefined) {
    const key = objectKey(cmd.object);
    out.push({ type: "CommandRejected", at, command: cmd.type, key, reason: `unknown object ${key}` });
    return;
  }
  if (cmd.id !== undefined && st.comments.has(cmd.id)) {
    out.push({ type: "CommandRejected", at, command: cmd.type, reason: `comment ${cmd.id} already exists` });
    return;
  }
  const n = ++st.commentSeq;
  const c: Comment = {
    id: cmd.id ?? `c-${n}`,
    object: i,
    author: cmd.author,
    text: cmd.comment,
    created: at,
  };
  st.comments.set(c.id, c);
  out.push({
    type: "CommentAdded",
    ...eventBase(st.objects, i, at),
    id: c.id,
    author: c.author,
    comment: c.text,
  });
}

/** Deletes an operator's comment by id; an unknown id is rejected. */
export function deleteComment(st: EngineState, cmd: DeleteCommentCommand, out: EngineEvent[]): void {
  const c = st.comments.get(cmd.id);
  if (c === undefined) {
    out.push({ type: "CommandRejected", at: cmd.at, command: cmd.type, reason: `no comment ${cmd.id}` });
    return;
  }
  st.comments.delete(c.id);
  out.push({
    type: "CommentDeleted",
    ...eventBase(st.objects, c.object, cmd.at),
    id: c.id,
    reason: "command",
  });
}

/**
 * Renumbers every comment's object for the table a reload built (`moved`: old number → new, -1 for
 * removed); a removed object's comments go, each with a CommentDeleted named from `old`.
 */
export function renumberComments(
  st: EngineState,
  old: ObjectTable,
  moved: Int32Array,
  at: number,
  out: EngineEvent[],
): void {
  for (const c of st.comments.values()) {
    const to = moved[c.object] as number;
    if (to >= 0) {
      c.object = to;
      continue;
    }
    st.comments.delete(c.id);
    out.push({ type: "CommentDeleted", ...eventBase(old, c.object, at), id: c.id, reason: "object-removed" });
  }
}

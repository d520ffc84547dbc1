/**
 * What the command log's follower reads by position when its consumer jumps ahead
 * (src/zones/command-stream.ts): the positions between are either parts of large groups (on the
 * parts subject) or groups the consumer passed over, which must be applied, in order, before the
 * one it delivered. Seen once after a JetStream quorum returned: every server's consumer passed
 * over the same acknowledged group. Never skipped.
 */

/** A stored message as the follower needs it: its subject, body and `Lookout-Parts` header. */
export interface StoredMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  /** The positions of its parts, comma-separated ("" for a message in one piece). */
  readonly parts: string;
}

export interface GapRead {
  /** The last position applied, and the one the consumer delivered: the gap lies between. */
  readonly after: number;
  readonly before: number;
  /** Positions not to read (the parts the delivered group names). */
  readonly skip: ReadonlySet<number>;
  /** The groups' subject; messages on any other (parts) are passed. */
  readonly subject: string;
  /** The message at a position, or null when there is none (a part purged or deleted). */
  get(seq: number): Promise<StoredMessage | null>;
  /** A group's body from its parts' positions. */
  assemble(parts: string): Promise<Uint8Array>;
}

/** The groups between `after` and `before`, in the log's order, each with its whole body. */
export async function groupsBetween(r: GapRead): Promise<{ seq: number; data: Uint8Array }[]> {
  const out: { seq: number; data: Uint8Array }[] = [];
  for (let seq = r.after + 1; seq < r.before; seq++) {
    if (r.skip.has(seq)) continue;
    const m = await r.get(seq);
    if (m === null || m.subject !== r.subject) continue;
    out.push({ seq, data: m.parts === "" ? m.data : await r.assemble(m.parts) });
  }
  return out;
}

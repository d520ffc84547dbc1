/**
 * A sink's `cursor` field: where a sink with no stored position starts reading the event log. The
 * config loader checks it with `parseSinkCursor`; the sinks turn it into the consumer host's start.
 * Once a sink has delivered anything its stored position wins, whatever `cursor` says.
 */
export type SinkCursor =
  | { readonly kind: "end" }
  | { readonly kind: "oldest" }
  | { readonly kind: "seq"; readonly seq: number }
  | { readonly kind: "time"; readonly at: number };

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Parses `cursor`: "" or "end" (after the newest event: only what happens from now on), "oldest"
 * (the oldest event the log still retains), a sequence number (the events after it), or an RFC 3339
 * time (the events appended at or after it). Returns a message instead on anything else.
 */
export function parseSinkCursor(text: string): SinkCursor | { readonly error: string } {
  if (text === "" || text === "end") return { kind: "end" };
  if (text === "oldest") return { kind: "oldest" };
  if (/^\d+$/.test(text)) {
    const seq = Number(text);
    if (!Number.isSafeInteger(seq)) return { error: `cursor ${text} is too large for a sequence number` };
    return { kind: "seq", seq };
  }
  if (RFC3339.test(text)) {
    const at = Date.parse(text.replace(" ", "T"));
    if (!Number.isNaN(at)) return { kind: "time", at };
  }
  return {
    error: `invalid cursor ${JSON.stringify(text)}: want "end", "oldest", a sequence number or an RFC 3339 time`,
  };
}

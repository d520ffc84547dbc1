/**
 * The replicated command log as text, for a failed replication test's logs: one line per message
 * of `LOOKOUT_CMDS` (position, subject, message id, group origin and number, and each row's time
 * and body cut short), so a write the API acknowledged can be looked for in the log itself.
 */
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { decodeGroup } from "../store/replicated-log.js";
import { COMMANDS_STREAM } from "../zones/names.js";

const ROW_CHARS = 300;

export async function dumpCommandLog(servers: string, timeoutMs = 10_000): Promise<string> {
  const nc = await connect({ servers: servers.split(","), timeout: timeoutMs });
  try {
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs });
    const info = await jsm.streams.info(COMMANDS_STREAM);
    const lines = [
      `${COMMANDS_STREAM}: first ${info.state.first_seq}, last ${info.state.last_seq}, ${info.state.messages} messages, leader ${info.cluster?.leader ?? "?"}, replicas ${JSON.stringify(info.cluster?.replicas ?? [])}`,
    ];
    const text = new TextDecoder();
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(COMMANDS_STREAM, { seq }).catch((e: unknown) => String(e));
      if (m === null || typeof m === "string") {
        lines.push(`${seq}: ${m ?? "missing"}`);
        continue;
      }
      const id = m.header.get("Nats-Msg-Id");
      const at = new Date(m.timestamp).toISOString();
      if (m.subject !== "lookout.cmd") {
        lines.push(`${seq} ${at} ${m.subject} id=${id} ${m.data.length} bytes`);
        continue;
      }
      try {
        const g = decodeGroup(m.data);
        lines.push(
          `${seq} ${at} id=${id} group ${g.origin}-${g.n}: ${g.rows.length} rows, ${g.configs.length} configs`,
        );
        for (const r of g.rows) {
          const body = text.decode(r.body).replace(/[^\x20-\x7e]+/g, "·");
          lines.push(
            `    ${new Date(r.at).toISOString()} ${body.slice(0, ROW_CHARS)}${body.length > ROW_CHARS ? "…" : ""}`,
          );
        }
      } catch (e) {
        lines.push(`${seq} ${at} id=${id}: ${String(e)}`);
      }
    }
    return `${lines.join("\n")}\n`;
  } finally {
    await nc.close();
  }
}

import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import { type ObjectStatus, QueryService } from "../api/gen/svc/v1/query_service_pb.js";
import { State, StateType } from "../api/gen/svc/v1/types_pb.js";
import { type FlagSpec, formatUsage, parseFlags } from "../app/flags.js";
import { parseCliTime } from "./cli-time.js";
import { SERVER_CLIENT_FLAGS, serverClient, serverTarget } from "./server-client.js";

/** The flags of `lookout status`. */
export const STATUS_FLAGS: readonly FlagSpec[] = [
  ...SERVER_CLIENT_FLAGS,
  {
    name: "at",
    kind: "string",
    default: "",
    usage: "the moment to show: RFC 3339 or before now (-2h, -1h30m, -1d); empty: now",
  },
  { name: "host", kind: "string", default: "", usage: "only this host and its services" },
  { name: "service", kind: "string", default: "", usage: "only this service (with -host)" },
  { name: "selector", kind: "string", default: "", usage: "a label selector (docs/selectors.md)" },
];

const PREAMBLE =
  "  lookout status [-at TIME] [-host H [-service S]] [-selector SEL]   the fleet's status, now or at a past moment\n\nFlags:";

interface Io {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

/**
 * `lookout status`: the fleet's status (ListStatus, every page) from a running server, now or as
 * it stood at `-at`, one object per line: host, service (`-` for a host), state, state type,
 * attempt/max, what holds (ack, downtime, flapping), output. Exit codes: 0 shown, 1 the server
 * refused (its Connect code and message on stderr), 2 bad usage.
 */
export async function runStatusCli(
  argv: readonly string[],
  io: Io,
  env: Readonly<Record<string, string | undefined>> = process.env,
  now: () => number = Date.now,
): Promise<number> {
  const parsed = parseFlags(STATUS_FLAGS, argv, env);
  if (!parsed.ok || parsed.rest.length > 0) {
    if (!parsed.ok && !parsed.help) io.stderr.write(`${parsed.error}\n`);
    if (parsed.ok) io.stderr.write(`unexpected argument: ${parsed.rest[0]}\n`);
    io.stderr.write(formatUsage("lookout status", STATUS_FLAGS, PREAMBLE));
    return !parsed.ok && parsed.help ? 0 : 2;
  }
  const v = parsed.values;
  const target = serverTarget(v);
  if ("error" in target) {
    io.stderr.write(`${target.error}\n`);
    return 2;
  }
  let at: number | undefined;
  if (String(v.at) !== "") {
    const t = parseCliTime(String(v.at), now());
    if (!t.ok) {
      io.stderr.write(`${t.error}\n`);
      return 2;
    }
    at = t.ms;
  }
  const host = String(v.host);
  const service = String(v.service);
  if (service !== "" && host === "") {
    io.stderr.write("-service needs -host\n");
    return 2;
  }
  const client = serverClient(QueryService, target);
  const lines: string[] = [];
  try {
    let pageToken = "";
    do {
      const page = await client.listStatus({
        ...(host === "" ? {} : { host }),
        ...(service === "" ? {} : { service }),
        selector: String(v.selector),
        pageSize: 1000,
        pageToken,
        ...(at === undefined ? {} : { at: timestampFromMs(at) }),
      });
      for (const s of page.statuses) lines.push(statusLine(s));
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
  } catch (e) {
    const c = ConnectError.from(e);
    io.stderr.write(`lookout status: ${codeName(c)}: ${c.rawMessage}\n`);
    return 1;
  }
  io.stdout.write(
    `# ${at === undefined ? "now" : `as of ${new Date(at).toISOString()}`}: ${lines.length} objects\n`,
  );
  io.stdout.write(lines.map((l) => `${l}\n`).join(""));
  return 0;
}

function statusLine(s: ObjectStatus): string {
  const holds = [
    s.acknowledgement === undefined ? "" : "ack",
    s.inDowntime ? "downtime" : "",
    s.flapping ? "flapping" : "",
  ].filter((h) => h !== "");
  const checked = s.lastCheck === undefined ? "-" : timestampDate(s.lastCheck).toISOString();
  return [
    s.host,
    s.service ?? "-",
    (State[s.state] ?? String(s.state)).replace(/^STATE_/, ""),
    (StateType[s.stateType] ?? String(s.stateType)).replace(/^STATE_TYPE_/, ""),
    `${s.attempt}/${s.maxAttempts}`,
    holds.length === 0 ? "-" : holds.join(","),
    checked,
    s.output.replace(/[\r\n\t]+/g, " "),
  ].join("\t");
}

function codeName(e: ConnectError): string {
  // Code's names in Connect's snake_case: OutOfRange → out_of_range.
  return codeNames[e.code] ?? String(e.code);
}

const codeNames: Readonly<Record<number, string>> = {
  1: "canceled",
  2: "unknown",
  3: "invalid_argument",
  4: "deadline_exceeded",
  5: "not_found",
  6: "already_exists",
  7: "permission_denied",
  8: "resource_exhausted",
  9: "failed_precondition",
  10: "aborted",
  11: "out_of_range",
  12: "unimplemented",
  13: "internal",
  14: "unavailable",
  15: "data_loss",
  16: "unauthenticated",
};

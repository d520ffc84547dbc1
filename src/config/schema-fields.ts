import { isObj } from "./decode-reader.js";
import type { DocPath } from "./locate.js";

/**
 * The fields each schema definition allows, so an unknown field can be answered with "did you mean"
 * or the list of what is allowed. schema-fields.test.ts pins every name against schema.cue.
 */
const SCHEDULE = ["check_interval", "retry_interval", "timeout", "max_attempts", "flap"];
const SNMP = [
  "type",
  ...SCHEDULE,
  "address",
  "oid",
  "community",
  "user",
  "auth_proto",
  "auth_pass",
  "priv_proto",
  "priv_pass",
  "warn",
  "crit",
  "expect",
  "label",
  "uom",
];
const SINK_COMMON = ["type", "input", "selector", "batch_size", "flush_interval"];

export const DEFINITION_FIELDS: Readonly<Record<string, readonly string[]>> = {
  "#Schema": ["hosts", "resources", "commands", "contacts", "notifications", "views", "sinks"],
  "#Host": ["address", "parents", "vars", "check", "services", "notification", "zone", "labels"],
  "#Service": ["vars", "check", "notification", "zone", "labels"],
  "#Command": ["line", "shell"],
  "#Flap": ["enabled", "alpha", "high_threshold", "low_threshold", "notify_on_flap_stop"],
  "#TcpCheck": ["type", ...SCHEDULE, "address"],
  "#HttpCheck": [
    "type",
    ...SCHEDULE,
    "url",
    "method",
    "headers",
    "body",
    "expect_status",
    "expect_body",
    "expect_body_regex",
    "follow_redirects",
    "tls_verify",
    "ca_file",
    "sni",
    "warn",
    "crit",
  ],
  "#DnsCheck": ["type", ...SCHEDULE, "server", "name"],
  "#IcmpCheck": ["type", ...SCHEDULE, "host"],
  "#TlsCheck": ["type", ...SCHEDULE, "address", "warn_within", "crit_within", "verify", "ca_file", "sni"],
  // #SnmpFields is #SnmpCheck without its "exactly one of community and user" rule: the same fields.
  "#SnmpCheck": SNMP,
  "#SnmpFields": SNMP,
  "#LegacyCheck": ["type", ...SCHEDULE, "path", "args"],
  "#WasmCheck": ["type", ...SCHEDULE, "module", "args"],
  "#CommandCheck": ["type", ...SCHEDULE, "command", "args"],
  "#PassiveCheck": ["type", ...SCHEDULE, "freshness_threshold", "stale_status"],
  "#Window": ["weekday", "start", "end"],
  "#View": ["selector", "description"],
  "#EmailContact": ["type", "address", "labels"],
  "#WebhookContact": ["type", "url", "labels"],
  "#CommandContact": ["type", "command", "args", "address", "labels"],
  "#TelegramContact": ["type", "chat_id", "labels"],
  "#NotificationPolicy": ["period", "levels"],
  "#EscalationLevel": ["contacts", "threshold", "renotify_interval", "disabled_kinds"],
  "#ClickhouseSink": [...SINK_COMMON, "url", "table"],
  "#RemoteWriteSink": [...SINK_COMMON, "url", "cursor"],
  "#ArchiveSink": [...SINK_COMMON, "url", "segment_bytes"],
  "#HttpSink": [...SINK_COMMON, "url", "headers", "cursor"],
  "#ExecSink": [...SINK_COMMON, "command", "cursor"],
  "#FileSink": [...SINK_COMMON, "path", "rotate_bytes", "cursor"],
  "#OtlpSink": [...SINK_COMMON, "url", "headers", "cursor"],
};

const BRANCH: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  check: {
    tcp: "#TcpCheck",
    http: "#HttpCheck",
    dns: "#DnsCheck",
    icmp: "#IcmpCheck",
    tls: "#TlsCheck",
    snmp: "#SnmpCheck",
    legacy: "#LegacyCheck",
    wasm: "#WasmCheck",
    command: "#CommandCheck",
    passive: "#PassiveCheck",
  },
  contact: {
    email: "#EmailContact",
    webhook: "#WebhookContact",
    command: "#CommandContact",
    telegram: "#TelegramContact",
  },
  sink: {
    clickhouse: "#ClickhouseSink",
    remote_write: "#RemoteWriteSink",
    archive: "#ArchiveSink",
    http: "#HttpSink",
    exec: "#ExecSink",
    file: "#FileSink",
    otlp: "#OtlpSink",
  },
};

/** The schema definition of one branch of a union (`check`/`tcp` → `#TcpCheck`). */
export function branchDefinition(kind: "check" | "contact" | "sink", type: string): string | undefined {
  return BRANCH[kind]?.[type];
}

function get(data: unknown, path: DocPath): unknown {
  let v = data;
  for (const k of path) v = Array.isArray(v) ? v[Number(k)] : isObj(v) ? v[String(k)] : undefined;
  return v;
}

/** The definition that governs the struct at `path` of a document, when the loader knows it. */
export function definitionAt(path: DocPath, raw: unknown): string | undefined {
  const p = path.map(String);
  const typeAt = (q: readonly string[]) => {
    const v = get(raw, q);
    return isObj(v) && typeof v.type === "string" ? v.type : "";
  };
  const check = (q: readonly string[]) => branchDefinition("check", typeAt(q));
  if (p.length === 0) return "#Schema";
  switch (p[0]) {
    case "hosts":
      if (p.length === 2) return "#Host";
      if (p.length === 3 && p[2] === "check") return check(p);
      if (p.length === 4 && p[2] === "check" && p[3] === "flap") return "#Flap";
      if (p.length === 4 && p[2] === "services") return "#Service";
      if (p.length === 5 && p[4] === "check") return check(p);
      if (p.length === 6 && p[4] === "check" && p[5] === "flap") return "#Flap";
      return undefined;
    case "commands":
      return p.length === 2 ? "#Command" : undefined;
    case "contacts":
      return p.length === 2 ? branchDefinition("contact", typeAt(p)) : undefined;
    case "sinks":
      return p.length === 2 ? branchDefinition("sink", typeAt(p)) : undefined;
    case "views":
      return p.length === 2 ? "#View" : undefined;
    case "notifications":
      if (p.length === 2) return "#NotificationPolicy";
      if (p.length === 4 && p[2] === "period") return "#Window";
      if (p.length === 4 && p[2] === "levels") return "#EscalationLevel";
      return undefined;
    default:
      return undefined;
  }
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j] as number;
      row[j] = Math.min(cur + 1, (row[j - 1] as number) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length] as number;
}

/**
 * What to say about an unknown field `name` in the struct at `parent`: a near miss ("did you mean
 * address?") or the allowed fields; "" when the loader does not know the struct. `closedBy` is the
 * schema definition the engine named as closing it, if any.
 */
export function unknownFieldAdvice(parent: DocPath, name: string, raw: unknown, closedBy?: string): string {
  // The definition the engine says closed the struct, when the document around it did not export.
  const def =
    definitionAt(parent, raw) ??
    (closedBy !== undefined && closedBy in DEFINITION_FIELDS ? closedBy : undefined);
  const fields = def === undefined ? undefined : DEFINITION_FIELDS[def];
  // A field the schema allows was refused by something else (a closed struct of the user's):
  // suggesting the same name would help no one.
  if (fields === undefined || fields.includes(name)) return "";
  const best = nearestName(name, fields);
  if (best !== undefined) return `; did you mean "${best}"?`;
  return `; allowed fields: ${fields.join(", ")}`;
}

/**
 * The one of `candidates` close enough to `name` to be a typo of it, never `name` itself;
 * undefined when none is.
 */
export function nearestName(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const f of candidates) {
    if (f === name) continue;
    const d = distance(name, f);
    if (d < bestDistance) {
      best = f;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined;
}

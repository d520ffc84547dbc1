import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { AdminService, type ConfigVersion, type PlanSection } from "../api/gen/svc/v1/admin_service_pb.js";
import { type FlagSpec, formatUsage, parseFlags } from "../app/flags.js";
import { SERVER_CLIENT_FLAGS, type ServerTarget, serverClient, serverTarget } from "./server-client.js";

/** Where the subcommand writes, and the environment its flags fall back to. */
export interface ConfigCliIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
}

const USAGE = `usage:
  lookout config history [flags]              the applied config versions, newest first
  lookout config show [flags] [VERSION]       a version's document (none: the one served now)
  lookout config diff [flags] FROM [TO]       what changed from version FROM to TO (none: the newest)
  lookout config rollback [flags] VERSION     apply version VERSION's document again
`;

const HISTORY_FLAGS: readonly FlagSpec[] = [
  ...SERVER_CLIENT_FLAGS,
  { name: "limit", kind: "string", default: "20", usage: "at most this many versions (0: all)" },
];

/**
 * `lookout config`: the config history of a running server (docs/config-history.md) through the
 * AdminService, as an admin identity (-token or LOOKOUT_TOKEN). Exit status 0 when the server
 * answered, 1 when it refused or could not be reached, 2 for a usage error.
 */
export async function runConfigCli(args: readonly string[], io: ConfigCliIo): Promise<number> {
  const sub = args[0];
  const specs = sub === "history" ? HISTORY_FLAGS : SERVER_CLIENT_FLAGS;
  if (sub !== "history" && sub !== "show" && sub !== "diff" && sub !== "rollback") {
    io.stderr.write(USAGE);
    return sub === "-h" || sub === "--help" || sub === "help" ? 0 : 2;
  }
  const parsed = parseFlags(specs, args.slice(1), io.env);
  if (!parsed.ok) {
    if (!parsed.help) io.stderr.write(`${parsed.error}\n`);
    io.stderr.write(formatUsage(`lookout config ${sub}`, specs, USAGE));
    return parsed.help ? 0 : 2;
  }
  const target = serverTarget(parsed.values);
  if ("error" in target) {
    io.stderr.write(`${target.error}\n`);
    return 2;
  }
  const usage = (message: string): number => {
    io.stderr.write(`lookout config ${sub}: ${message}\n`);
    return 2;
  };
  const versions: bigint[] = [];
  for (const a of parsed.rest) {
    if (!/^[1-9][0-9]{0,15}$/.test(a)) return usage(`not a version number: ${JSON.stringify(a)}`);
    versions.push(BigInt(a));
  }
  try {
    switch (sub) {
      case "history": {
        const limit = Number(parsed.values.limit);
        if (!Number.isInteger(limit) || limit < 0) return usage("-limit: want a whole number");
        if (versions.length > 0) return usage("takes no arguments");
        await history(target, limit, io);
        return 0;
      }
      case "show": {
        if (versions.length > 1) return usage("takes at most one version");
        const r = await serverClient(AdminService, target).getConfig(
          versions[0] === undefined ? {} : { version: versions[0] },
        );
        io.stdout.write(r.cue);
        return 0;
      }
      case "diff": {
        if (versions.length < 1 || versions.length > 2) return usage("wants FROM and, optionally, TO");
        await diff(target, versions[0] as bigint, versions[1], io);
        return 0;
      }
      case "rollback": {
        if (versions.length !== 1) return usage("wants one VERSION");
        const r = await serverClient(AdminService, target).rollbackConfig({ version: versions[0] as bigint });
        io.stdout.write(
          r.version === 0n
            ? `version ${versions[0]}'s document is the one in force already: nothing changed\n`
            : `rolled back to version ${versions[0]}: now in force as version ${r.version}\n`,
        );
        return 0;
      }
      default: {
        const never: never = sub;
        throw new Error(`unknown subcommand ${String(never)}`);
      }
    }
  } catch (e) {
    io.stderr.write(`lookout config ${sub}: ${failure(e, target)}\n`);
    return 1;
  }
}

async function history(target: ServerTarget, limit: number, io: ConfigCliIo): Promise<void> {
  const client = serverClient(AdminService, target);
  const rows: ConfigVersion[] = [];
  let pageToken = "";
  do {
    const want = limit === 0 ? 1000 : Math.min(1000, limit - rows.length);
    const page = await client.listConfigVersions({ pageSize: want, pageToken });
    rows.push(...page.versions);
    pageToken = page.nextPageToken;
  } while (pageToken !== "" && (limit === 0 || rows.length < limit));
  if (rows.length === 0) {
    io.stdout.write("no config version is recorded\n");
    return;
  }
  const table = [
    ["VERSION", "APPLIED (UTC)", "BY", "SHA256", "SUMMARY"],
    ...rows.map((v) => [
      v.rollbackOf === 0n ? `${v.version}` : `${v.version} (rollback to ${v.rollbackOf})`,
      v.appliedAt === undefined
        ? ""
        : timestampDate(v.appliedAt).toISOString().replace("T", " ").slice(0, 19),
      v.appliedBy,
      v.sha256.slice(0, 12),
      v.summary,
    ]),
  ];
  io.stdout.write(columns(table));
}

async function diff(
  target: ServerTarget,
  from: bigint,
  to: bigint | undefined,
  io: ConfigCliIo,
): Promise<void> {
  const r = await serverClient(AdminService, target).diffConfig(
    to === undefined ? { fromVersion: from } : { fromVersion: from, toVersion: to },
  );
  io.stdout.write(r.unified === "" ? "the two documents are identical\n" : r.unified);
  if (r.diagnostics.length > 0) {
    io.stdout.write("\nno object diff: a version no longer loads:\n");
    for (const d of r.diagnostics) io.stdout.write(`  ${d.file}:${d.line}:${d.column}: ${d.message}\n`);
    return;
  }
  const changed = r.sections.filter((s) => s.added + s.changed + s.removed > 0);
  io.stdout.write(changed.length === 0 ? "\nno object changes\n" : "\n");
  for (const s of changed) io.stdout.write(sectionLines(s));
}

function sectionLines(s: PlanSection): string {
  const lines = [`${s.kind}: +${s.added} ~${s.changed} -${s.removed}`];
  const names = (sign: string, list: readonly string[]) => {
    for (const n of list) lines.push(`  ${sign} ${n}`);
  };
  names("+", s.addedNames);
  names("~", s.changedNames);
  names("-", s.removedNames);
  if (s.truncated) lines.push("  (lists cut at 100 names)");
  return `${lines.join("\n")}\n`;
}

/** Rows as left-aligned columns, two spaces apart (the last column as it is). */
function columns(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const r of rows) {
    for (let i = 0; i < r.length; i++) widths[i] = Math.max(widths[i] ?? 0, (r[i] as string).length);
  }
  return rows
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  "))
    .join("\n")
    .concat("\n");
}

/** What the operator is told of a failed call: the server's code and message; never the token. */
function failure(e: unknown, target: ServerTarget): string {
  if (e instanceof ConnectError) {
    switch (e.code) {
      case Code.Unauthenticated:
        return `unauthenticated: set LOOKOUT_TOKEN (or -token) to an admin identity's token (${e.rawMessage})`;
      case Code.PermissionDenied:
        return `permission_denied: the token's identity is not an admin (${e.rawMessage})`;
      case Code.Unimplemented:
        return `unimplemented: ${target.baseUrl} serves no AdminService here (started without -auth-config, or -read-only?) (${e.rawMessage})`;
      case Code.Unavailable:
        return `cannot reach ${target.baseUrl}: ${e.rawMessage}`;
      default:
        return `${Code[e.code]?.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase() ?? e.code}: ${e.rawMessage}`;
    }
  }
  return `cannot reach ${target.baseUrl}: ${String(e)}`;
}

import type { CheckOutcome, CheckResult, PerfDatum } from "../model/check-result.js";
import type { CheckTarget } from "../model/checker.js";
import type { CheckConfig, CommandTemplate, Config, HostConfig, ServiceConfig } from "../model/config.js";
import { isExitStatus } from "../model/state.js";

/**
 * What a worker needs to run one check, and nothing more: the check block, the host (address,
 * vars, labels; not its other services), the service, and for a `command` check the one command
 * template it names and the `$USERn$` resources that the template or the arguments mention. Other
 * resources, commands, contacts, sinks and hosts never leave the server. A job is JSON.
 */
export interface Job {
  readonly v: 1;
  /** `host` or `host!service`. */
  readonly key: string;
  readonly zone: string;
  /** When the run was due (ms since the epoch): with the key, the job's identity. */
  readonly due: number;
  /** After this a worker drops the job unrun (the next run's job supersedes it). */
  readonly expiresAt: number;
  readonly timeoutMs: number;
  /** The fencing token of the leader that published it (0 without leader election). */
  readonly leader: number;
  readonly host: Omit<HostConfig, "services">;
  readonly service?: ServiceConfig;
  readonly check: CheckConfig;
  readonly command?: CommandTemplate;
  readonly resources?: Readonly<Record<string, string>>;
}

/** What a worker publishes for a job it ran. */
export interface ResultMessage {
  readonly v: 1;
  readonly key: string;
  readonly host: string;
  readonly service?: string;
  readonly zone: string;
  readonly worker: string;
  readonly due: number;
  readonly checkedAt: number;
  readonly durationMs: number;
  readonly exitStatus: number;
  readonly output: string;
  readonly longOutput: string;
  readonly perfdata: readonly PerfDatum[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The resources a command check can expand: those whose `$NAME$` its template or args mention. */
function referencedResources(
  config: Config,
  template: CommandTemplate,
  args: readonly string[],
): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  const text = [template.line, ...args].join("\n");
  for (const [name, value] of Object.entries(config.resources)) {
    if (!text.includes(`$${name}$`)) continue;
    out ??= {};
    out[name] = value;
  }
  return out;
}

/** Builds the job for one due run of a planned check. */
export function makeJob(o: {
  readonly key: string;
  readonly zone: string;
  readonly due: number;
  readonly expiresAt: number;
  readonly timeoutMs: number;
  readonly leader: number;
  readonly target: CheckTarget;
}): Job {
  const { target } = o;
  const { services: _services, ...host } = target.host;
  const check = target.probe as CheckConfig;
  let command: CommandTemplate | undefined;
  let resources: Record<string, string> | undefined;
  if (check.type === "command") {
    command = target.config.commands.get(check.command);
    if (command !== undefined) resources = referencedResources(target.config, command, check.args);
  }
  return {
    v: 1,
    key: o.key,
    zone: o.zone,
    due: o.due,
    expiresAt: o.expiresAt,
    timeoutMs: o.timeoutMs,
    leader: o.leader,
    host,
    ...(target.service === undefined ? {} : { service: target.service }),
    check,
    ...(command === undefined ? {} : { command }),
    ...(resources === undefined ? {} : { resources }),
  };
}

export function encodeJob(job: Job): Uint8Array {
  return encoder.encode(JSON.stringify(job));
}

/**
 * Encodes the jobs of one object's runs: the part that does not change from run to run (host,
 * service, check, command, resources) is stringified once, so each run costs a few number
 * conversions and one UTF-8 encode. The bytes equal `encodeJob(makeJob(...))` (job.test.ts).
 */
export function jobEncoder(o: {
  readonly key: string;
  readonly zone: string;
  readonly timeoutMs: number;
  readonly target: CheckTarget;
}): (run: { readonly due: number; readonly expiresAt: number; readonly leader: number }) => Uint8Array {
  const sample = makeJob({ ...o, due: 0, expiresAt: 0, leader: 0 });
  const { v, key, zone, due: _d, expiresAt: _e, timeoutMs, leader: _l, ...fixed } = sample;
  const head = `{"v":${v},"key":${JSON.stringify(key)},"zone":${JSON.stringify(zone)},"due":`;
  const tail = `,"timeoutMs":${timeoutMs},"leader":`;
  const rest = `,${JSON.stringify(fixed).slice(1)}`;
  return (run) => encoder.encode(`${head}${run.due},"expiresAt":${run.expiresAt}${tail}${run.leader}${rest}`);
}

/** Decodes a job; undefined when the bytes are not one (a newer format, garbage). */
export function decodeJob(data: Uint8Array): Job | undefined {
  try {
    const j = JSON.parse(decoder.decode(data)) as Partial<Job>;
    if (j.v !== 1 || typeof j.key !== "string" || typeof j.due !== "number" || j.check === undefined)
      return undefined;
    if (j.host === undefined || typeof j.timeoutMs !== "number" || typeof j.expiresAt !== "number")
      return undefined;
    return j as Job;
  } catch {
    return undefined;
  }
}

/** The CheckTarget a worker's checker runs: a config of one host, one service and one command. */
export function targetOfJob(job: Job): CheckTarget {
  const host: HostConfig = {
    ...job.host,
    services: job.service === undefined ? new Map() : new Map([[job.service.name, job.service]]),
  };
  const config: Config = {
    hosts: new Map([[host.name, host]]),
    resources: job.resources ?? {},
    commands: job.command === undefined ? new Map() : new Map([[job.command.name, job.command]]),
    contacts: new Map(),
    notifications: new Map(),
    views: new Map(),
    sinks: new Map(),
  };
  return {
    probe: job.check,
    host,
    ...(job.service === undefined ? {} : { service: job.service }),
    config,
  };
}

/** The result message of a run. */
export function makeResult(
  job: Job,
  worker: string,
  checkedAt: number,
  durationMs: number,
  o: CheckOutcome,
): ResultMessage {
  return {
    v: 1,
    key: job.key,
    host: job.host.name,
    ...(job.service === undefined ? {} : { service: job.service.name }),
    zone: job.zone,
    worker,
    due: job.due,
    checkedAt,
    durationMs,
    exitStatus: o.exitStatus,
    output: o.output,
    longOutput: o.longOutput,
    perfdata: o.perfdata,
  };
}

export function encodeResult(r: ResultMessage): Uint8Array {
  return encoder.encode(JSON.stringify(r));
}

/** Decodes a result message; undefined when the bytes are not one. */
export function decodeResult(data: Uint8Array): ResultMessage | undefined {
  try {
    const r = JSON.parse(decoder.decode(data)) as Partial<ResultMessage>;
    if (r.v !== 1 || typeof r.host !== "string" || typeof r.exitStatus !== "number") return undefined;
    if (!isExitStatus(r.exitStatus) || typeof r.output !== "string" || typeof r.checkedAt !== "number")
      return undefined;
    if (r.service !== undefined && typeof r.service !== "string") return undefined;
    return r as ResultMessage;
  } catch {
    return undefined;
  }
}

/**
 * The check result a result message submits: an active result, as if run by the server, except
 * that it names the worker that ran it (its `executor`).
 */
export function checkResultOf(r: ResultMessage): CheckResult {
  const base = {
    exitStatus: r.exitStatus as CheckResult["exitStatus"],
    output: r.output,
    longOutput: typeof r.longOutput === "string" ? r.longOutput : "",
    perfdata: Array.isArray(r.perfdata) ? r.perfdata : [],
    host: r.host,
    checkedAt: r.checkedAt,
    durationMs: typeof r.durationMs === "number" && r.durationMs >= 0 ? r.durationMs : 0,
    source: "active" as const,
    ...(typeof r.worker === "string" && r.worker !== "" ? { executor: r.worker } : {}),
  };
  return r.service === undefined ? base : { ...base, service: r.service };
}

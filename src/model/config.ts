/**
 * The typed, immutable configuration that the loader decodes a CUE document into.
 * Durations are milliseconds; names are the keys they had in the document. Every map keyed by a
 * name is a ReadonlyMap so that 100,000 objects cost no more than they must.
 */

/** The ten check types, in the order the schema lists them. */
export const CHECK_TYPES = [
  "command",
  "dns",
  "http",
  "icmp",
  "legacy",
  "passive",
  "snmp",
  "tcp",
  "tls",
  "wasm",
] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

export const CONTACT_TYPES = ["command", "email", "telegram", "webhook"] as const;
export type ContactType = (typeof CONTACT_TYPES)[number];

export const SINK_TYPES = ["archive", "clickhouse", "exec", "file", "http", "otlp", "remote_write"] as const;
export type SinkType = (typeof SINK_TYPES)[number];

export const NOTIFICATION_KINDS = [
  "PROBLEM",
  "RECOVERY",
  "STATUS_CHANGE",
  "FLAPPING_START",
  "FLAPPING_STOP",
  "ACKNOWLEDGEMENT",
  "DOWNTIME_START",
  "DOWNTIME_END",
  "DOWNTIME_REMOVED",
  "CUSTOM",
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export type Labels = Readonly<Record<string, string>>;
export type Vars = Readonly<Record<string, string>>;

/** `#Flap`: exponentially weighted flap detection. */
export interface FlapConfig {
  readonly enabled: boolean;
  readonly alpha: number;
  readonly highThreshold: number;
  readonly lowThreshold: number;
  readonly notifyOnFlapStop: boolean;
}

/** `#Schedule`, embedded by every check branch. */
export interface ScheduleConfig {
  readonly checkIntervalMs: number;
  readonly retryIntervalMs: number;
  readonly timeoutMs: number;
  readonly maxAttempts: number;
  readonly flap: FlapConfig;
}

export interface TcpProbe {
  readonly type: "tcp";
  readonly address: string;
}
export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
/** An inclusive range of HTTP status codes; a single code is `[code, code]`. */
export type StatusRange = readonly [number, number];
/**
 * An `http` check. Every field but `url` is absent when it has its default (the decoder leaves
 * defaults out, so a plain check costs what it did before the options existed). `headers` values
 * may be credentials and are never logged, shown or echoed.
 */
export interface HttpProbe {
  readonly type: "http";
  readonly url: string;
  /** Default GET. */
  readonly method?: HttpMethod;
  /** Default 0: a redirect is judged as it is; n: up to n redirects are followed. */
  readonly followRedirects?: number;
  /** Default true. */
  readonly tlsVerify?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The codes that are OK, any other CRITICAL; absent: 2xx/3xx OK, 4xx WARNING, else CRITICAL. */
  readonly expectStatus?: readonly StatusRange[];
  readonly expectBody?: string;
  /** An RE2 pattern, checked when the config was loaded. */
  readonly expectBodyRegex?: string;
  /** A PEM bundle that replaces the default trusted roots. */
  readonly caFile?: string;
  readonly sni?: string;
  /** Response time thresholds (ms). */
  readonly warnMs?: number;
  readonly critMs?: number;
}
export interface DnsProbe {
  readonly type: "dns";
  readonly server: string;
  readonly name: string;
}
export interface IcmpProbe {
  readonly type: "icmp";
  readonly host: string;
}
export interface TlsProbe {
  readonly type: "tls";
  readonly address: string;
  readonly warnWithinMs: number;
  readonly critWithinMs: number;
  /** Absent: true. false: the certificate is judged by its expiry only, not its chain or names. */
  readonly verify?: boolean;
  /** A PEM bundle that replaces the default trusted roots. */
  readonly caFile?: string;
  /** The TLS server name sent and verified; default the address's host unless an IP literal. */
  readonly sni?: string;
}
export const SNMP_AUTH_PROTOS = ["", "MD5", "SHA", "SHA224", "SHA256", "SHA384", "SHA512"] as const;
export type SnmpAuthProto = (typeof SNMP_AUTH_PROTOS)[number];
export const SNMP_PRIV_PROTOS = ["", "DES", "AES", "AES192", "AES256", "AES192C", "AES256C"] as const;
export type SnmpPrivProto = (typeof SNMP_PRIV_PROTOS)[number];
export interface SnmpProbe {
  readonly type: "snmp";
  readonly address: string;
  readonly oid: string;
  /** v2c when set; exactly one of `community` and `user` is set. */
  readonly community?: string;
  /** v3 USM when set. */
  readonly user?: string;
  readonly authProto: SnmpAuthProto;
  readonly authPass: string;
  readonly privProto: SnmpPrivProto;
  readonly privPass: string;
  readonly warn: string;
  readonly crit: string;
  readonly expect: string;
  readonly label: string;
  readonly uom: string;
}
export interface LegacyProbe {
  readonly type: "legacy";
  readonly path: string;
  readonly args: readonly string[];
}
export interface WasmProbe {
  readonly type: "wasm";
  readonly module: string;
  readonly args: readonly string[];
}
export interface CommandProbe {
  readonly type: "command";
  /** A key of `Config.commands`. */
  readonly command: string;
  readonly args: readonly string[];
}
export type StaleStatus = "UNKNOWN" | "WARNING" | "CRITICAL";
export interface PassiveProbe {
  readonly type: "passive";
  readonly freshnessThresholdMs: number;
  readonly staleStatus: StaleStatus;
}

/** What a check does, discriminated by `type`. */
export type ProbeConfig =
  | CommandProbe
  | DnsProbe
  | HttpProbe
  | IcmpProbe
  | LegacyProbe
  | PassiveProbe
  | SnmpProbe
  | TcpProbe
  | TlsProbe
  | WasmProbe;

/** A `#Check`: the probe and the schedule it runs on. */
export type CheckConfig = ProbeConfig & ScheduleConfig;

export interface ServiceConfig {
  readonly host: string;
  readonly name: string;
  readonly vars: Vars;
  readonly check: CheckConfig;
  /** A key of `Config.notifications`, or "" for never. */
  readonly notification: string;
  /** The effective zone: the service's own, or the host's when the document left it empty. */
  readonly zone: string;
  readonly labels: Labels;
}

export interface HostConfig {
  readonly name: string;
  readonly address: string;
  readonly parents: readonly string[];
  readonly vars: Vars;
  readonly check: CheckConfig;
  readonly services: ReadonlyMap<string, ServiceConfig>;
  readonly notification: string;
  readonly zone: string;
  readonly labels: Labels;
}

export interface CommandTemplate {
  readonly name: string;
  readonly line: string;
  readonly shell: boolean;
}

interface ContactCommon {
  readonly name: string;
  readonly labels: Labels;
}
export type ContactConfig = ContactCommon &
  (
    | { readonly type: "email"; readonly address: string }
    | { readonly type: "webhook"; readonly url: string }
    | {
        readonly type: "command";
        readonly command: string;
        readonly args: readonly string[];
        readonly address: string;
      }
    | { readonly type: "telegram"; readonly chatId: string }
  );

export const WEEKDAYS = [
  "sunday",
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** `#Window`: one weekday, [start, end) in minutes after midnight (end may be 1440). */
export interface WindowConfig {
  readonly weekday: Weekday;
  readonly start: string;
  readonly end: string;
  readonly startMinute: number;
  readonly endMinute: number;
}

export interface EscalationLevelConfig {
  readonly contacts: readonly string[];
  readonly threshold: number;
  readonly renotifyIntervalMs: number;
  readonly disabledKinds: readonly NotificationKind[];
}

export interface NotificationPolicyConfig {
  readonly name: string;
  readonly period: readonly WindowConfig[];
  readonly levels: readonly EscalationLevelConfig[];
}

export interface ViewConfig {
  readonly name: string;
  /** The selector's source text; the loader has already checked that it parses. */
  readonly selector: string;
  readonly description: string;
}

interface SinkCommon {
  readonly name: string;
  readonly input: "metrics" | "events";
  readonly selector: string;
  readonly batchSize: number;
  readonly flushIntervalMs: number;
}
export type SinkConfig = SinkCommon &
  (
    | { readonly type: "clickhouse"; readonly url: string; readonly table: string }
    | { readonly type: "remote_write"; readonly url: string; readonly cursor: string }
    | { readonly type: "archive"; readonly url: string; readonly segmentBytes: number }
    | {
        readonly type: "http";
        readonly url: string;
        readonly headers: Readonly<Record<string, string>>;
        readonly cursor: string;
      }
    | { readonly type: "exec"; readonly command: readonly string[]; readonly cursor: string }
    | { readonly type: "file"; readonly path: string; readonly rotateBytes: number; readonly cursor: string }
    | {
        readonly type: "otlp";
        readonly url: string;
        readonly headers: Readonly<Record<string, string>>;
        readonly cursor: string;
      }
  );

/** The whole decoded document. */
export interface Config {
  readonly hosts: ReadonlyMap<string, HostConfig>;
  readonly resources: Readonly<Record<string, string>>;
  readonly commands: ReadonlyMap<string, CommandTemplate>;
  readonly contacts: ReadonlyMap<string, ContactConfig>;
  readonly notifications: ReadonlyMap<string, NotificationPolicyConfig>;
  readonly views: ReadonlyMap<string, ViewConfig>;
  readonly sinks: ReadonlyMap<string, SinkConfig>;
}

/** The defaults of `#Schedule` and `#Flap`, as the reference states them. */
export const DEFAULT_FLAP: FlapConfig = {
  enabled: true,
  alpha: 0.1,
  highThreshold: 0.3,
  lowThreshold: 0.15,
  notifyOnFlapStop: false,
};
export const DEFAULT_SCHEDULE: ScheduleConfig = {
  checkIntervalMs: 60_000,
  retryIntervalMs: 15_000,
  timeoutMs: 10_000,
  maxAttempts: 3,
  flap: DEFAULT_FLAP,
};

/** An empty configuration: what Lookout serves when started without `-config`. */
export const EMPTY_CONFIG: Config = {
  hosts: new Map(),
  resources: {},
  commands: new Map(),
  contacts: new Map(),
  notifications: new Map(),
  views: new Map(),
  sinks: new Map(),
};

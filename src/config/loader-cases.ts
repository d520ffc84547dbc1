/**
 * The table of documents loader.test.ts runs: every constraint of the reference's schema tables and
 * every semantic rule has a failing case. In each document `»` marks where the one expected
 * diagnostic must point (the test strips it and computes line and column).
 */

export interface InvalidCase {
  readonly name: string;
  /** A CUE document with one `»` marker. */
  readonly doc: string;
  /** A substring of the diagnostic's message. */
  readonly message: string;
  /** A substring the diagnostic's message must not contain. */
  readonly notMessage?: string;
  readonly profile?: "demo";
}

const TCP = `{type: "tcp", address: "127.0.0.1:80"}`;

/** A host `web1` whose check is the given CUE struct text. */
const hostCheck = (check: string): string => {
  // A marker at the start of the check struct stands for the \`check:\` label (missing fields are
  // reported at the struct that lacks them).
  const at = check.startsWith("»");
  return `hosts: web1: {
	address: "10.0.0.1"
	${at ? "»" : ""}check: ${at ? check.slice(1) : check}
}
`;
};

/** A valid document plus extra top-level text. */
const withHost = (extra: string): string => `hosts: web1: {address: "10.0.0.1", check: ${TCP}}
${extra}`;

/** The check fields the schema gives defaults, declared optional so a user's closed #Check takes them. */
const OPTIONAL_DEFAULTS = "check_interval?: _, retry_interval?: _, timeout?: _, max_attempts?: _, flap?: _";

const ALL_CHECKS = "allowed types: command, dns, http, icmp, legacy, passive, snmp, tcp, tls, wasm";

export const INVALID_CASES: readonly InvalidCase[] = [
  // #Schema
  {
    name: "unknown top-level field",
    doc: withHost(`»hostz: {}`),
    message: `unknown top-level field "hostz"`,
  },
  { name: "hosts missing", doc: `»views: {}\n`, message: `missing required field "hosts"` },
  {
    name: "sink key pattern",
    doc: withHost(`sinks: »Metrics: {type: "remote_write", url: "http://x"}`),
    message: `sink name "Metrics" must match`,
  },
  {
    name: "resources key",
    doc: withHost(`resources: »PASSWORD: "x"`),
    message: `resources key "PASSWORD" must have the form USER<digits>`,
  },
  { name: "resources value type", doc: withHost(`resources: USER1: »5`), message: "resources.USER1" },
  // #Host
  {
    name: "host address missing",
    doc: `hosts: »web1: {check: ${TCP}}\n`,
    message: `hosts.web1.address: missing required field "address"`,
  },
  {
    name: "host address empty",
    doc: `hosts: web1: {address: »"", check: ${TCP}}\n`,
    message: "hosts.web1.address",
  },
  {
    name: "host check missing",
    doc: `hosts: »web1: {address: "a"}\n`,
    message: `hosts.web1.check: missing required field "check"`,
  },
  {
    name: "host zone empty",
    doc: `hosts: web1: {address: "a", zone: »"", check: ${TCP}}\n`,
    message: "hosts.web1.zone",
  },
  {
    name: "host unknown field",
    doc: `hosts: web1: {address: "a", »adress: "b", check: ${TCP}}\n`,
    message: `unknown field "adress"`,
  },
  {
    name: "field a user definition does not declare",
    doc: `#Labels: {env: string}
hosts: web1: {address: "a", labels: #Labels & {env: "prod", »team: "x"}, check: ${TCP}}
`,
    message: `hosts.web1.labels.team: field not allowed: the struct is closed by definition #Labels (case.cue:1:1), which does not declare "team"`,
  },
  {
    name: "a schema field a user definition does not declare: named with the definition, no same-name hint",
    doc: `#Check: {type: "tcp", address: string, ${OPTIONAL_DEFAULTS.replace("check_interval?: _, ", "")}}
hosts: web1: {address: "a", check: #Check & {address: "10.0.0.1:80", »check_interval: "1m"}}
`,
    message: `hosts.web1.check.check_interval: field not allowed: the struct is closed by definition #Check (case.cue:1:1), which does not declare "check_interval"`,
    notMessage: "did you mean",
  },
  {
    name: "a typo in a user definition's struct suggests the definition's field",
    doc: `#Check: {type: "tcp", address: string, ${OPTIONAL_DEFAULTS}}
hosts: web1: {address: "a", check: #Check & {address: "10.0.0.1:80", »adress: "x"}}
`,
    message: `field not allowed: the struct is closed by definition #Check (case.cue:1:1), which does not declare "adress"; did you mean "address"?`,
  },
  {
    name: "a field a user definition declares but the schema refuses is the schema's, not the definition's",
    doc: `#Check: {type: "tcp", address: string, »port: int, ${OPTIONAL_DEFAULTS}}
hosts: web1: {address: "a", check: #Check & {address: "10.0.0.1:80", port: 80}}
`,
    message: `hosts.web1.check.port: unknown field "port"; allowed fields: type, `,
    notMessage: "#Check",
  },
  {
    name: "fields the schema adds to a user definition's struct, in one diagnostic",
    doc: `»#Check: {type: "tcp", address: string}
hosts: web1: {address: "a", check: #Check & {address: "10.0.0.1:80"}}
`,
    message: `hosts.web1.check: field not allowed: Lookout's schema adds "check_interval", `,
  },
  {
    name: "label key",
    doc: `hosts: web1: {address: "a", labels: {»Env: "prod"}, check: ${TCP}}\n`,
    message: `label key "Env" must match`,
  },
  {
    name: "label value",
    doc: `hosts: web1: {address: "a", labels: {env: »"-prod"}, check: ${TCP}}\n`,
    message: "hosts.web1.labels.env",
  },
  {
    name: "vars key",
    doc: `hosts: web1: {address: "a", vars: {»password: "x"}, check: ${TCP}}\n`,
    message: `vars key "password" must match`,
  },
  {
    name: "vars value type",
    doc: `hosts: web1: {address: "a", vars: {PASSWORD: »1}, check: ${TCP}}\n`,
    message: "hosts.web1.vars.PASSWORD",
  },
  {
    name: "parents element type",
    doc: `hosts: web1: {address: "a", parents: [»1], check: ${TCP}}\n`,
    message: "hosts.web1.parents.0",
  },
  {
    name: "notification type",
    doc: `hosts: web1: {address: "a", notification: »true, check: ${TCP}}\n`,
    message: "hosts.web1.notification",
  },
  // #Service
  {
    name: "service check missing",
    doc: `hosts: web1: {address: "a", check: ${TCP}, services: »http: {}}\n`,
    message: `hosts.web1.services.http.check: missing required field "check"`,
  },
  {
    name: "service unknown field",
    doc: `hosts: web1: {address: "a", check: ${TCP}, services: http: {check: ${TCP}, »address: "x"}}\n`,
    message: `unknown field "address"`,
  },
  // #Command
  {
    name: "command line missing",
    doc: withHost(`commands: »ping: {shell: true}`),
    message: `commands.ping.line: missing required field "line"`,
  },
  { name: "command line empty", doc: withHost(`commands: ping: {line: »""}`), message: "commands.ping.line" },
  {
    name: "command shell type",
    doc: withHost(`commands: ping: {line: "x", shell: »"yes"}`),
    message: "commands.ping.shell",
  },
  // #Schedule and #Flap
  {
    name: "bad duration",
    doc: hostCheck(`{type: "tcp", address: "a:1", check_interval: »"1 minute"}`),
    message: "hosts.web1.check.check_interval",
  },
  {
    name: "max_attempts 0",
    doc: hostCheck(`{type: "tcp", address: "a:1", max_attempts: »0}`),
    message: "hosts.web1.check.max_attempts",
  },
  {
    name: "max_attempts float",
    doc: hostCheck(`{type: "tcp", address: "a:1", max_attempts: »1.5}`),
    message: "hosts.web1.check.max_attempts",
  },
  {
    name: "alpha 0",
    doc: hostCheck(`{type: "tcp", address: "a:1", flap: alpha: »0}`),
    message: "hosts.web1.check.flap.alpha",
  },
  {
    name: "alpha above 1",
    doc: hostCheck(`{type: "tcp", address: "a:1", flap: alpha: »1.5}`),
    message: "hosts.web1.check.flap.alpha",
  },
  {
    name: "high_threshold above 1",
    doc: hostCheck(`{type: "tcp", address: "a:1", flap: high_threshold: »1.2}`),
    message: "hosts.web1.check.flap.high_threshold",
  },
  {
    name: "low_threshold negative",
    doc: hostCheck(`{type: "tcp", address: "a:1", flap: low_threshold: »-0.1}`),
    message: "hosts.web1.check.flap.low_threshold",
  },
  {
    name: "low_threshold above high_threshold",
    doc: hostCheck(`{type: "tcp", address: "a:1", flap: {high_threshold: 0.2, low_threshold: »0.25}}`),
    message: "hosts.web1.check.flap.low_threshold",
  },
  {
    name: "flap enabled type",
    doc: hostCheck(`{type: "tcp", address: "a:1", flap: enabled: »"no"}`),
    message: "hosts.web1.check.flap.enabled",
  },
  // #Check discriminator
  {
    name: "unknown check type",
    doc: hostCheck(`{type: »"htp", url: "http://x"}`),
    message: `hosts.web1.check.type: unknown check type "htp"; ${ALL_CHECKS}`,
  },
  {
    name: "missing check type",
    doc: `hosts: web1: {\n\taddress: "10.0.0.1"\n\t»check: {address: "127.0.0.1:80"}\n}\n`,
    message: `hosts.web1.check: missing check type; ${ALL_CHECKS}`,
  },
  {
    name: "unknown service check type",
    doc: `hosts: web1: {address: "a", check: ${TCP}, services: s: check: {type: »"pop3"}}\n`,
    message: `hosts.web1.services.s.check.type: unknown check type "pop3"`,
  },
  {
    name: "field of another check type",
    doc: hostCheck(`{type: "tcp", address: "a:1", »url: "x"}`),
    message: `unknown field "url"`,
  },
  // check branches
  {
    name: "tcp address missing",
    doc: `hosts: web1: {address: "a", »check: {type: "tcp"}}\n`,
    message: `hosts.web1.check.address: missing required field "address"`,
  },
  {
    name: "tcp address form",
    doc: hostCheck(`{type: "tcp", address: »"localhost"}`),
    message: "hosts.web1.check.address",
  },
  { name: "http url missing", doc: hostCheck(`»{type: "http"}`), message: `missing required field "url"` },
  { name: "http url empty", doc: hostCheck(`{type: "http", url: »""}`), message: "hosts.web1.check.url" },
  {
    name: "http method",
    doc: hostCheck(`{type: "http", url: "http://x", method: »"FETCH"}`),
    message: "hosts.web1.check.method",
  },
  {
    name: "http expect_status code out of range",
    doc: hostCheck(`{type: "http", url: "http://x", expect_status: [200, »600]}`),
    message: "hosts.web1.check.expect_status.1",
  },
  {
    name: "http expect_status range form",
    doc: hostCheck(`{type: "http", url: "http://x", expect_status: [»"2xx"]}`),
    message: "hosts.web1.check.expect_status.0",
  },
  {
    name: "http expect_status range reversed",
    doc: hostCheck(`{type: "http", url: "http://x", expect_status: [»"299-200"]}`),
    message: `range "299-200" ends before it starts`,
  },
  {
    name: "http expect_status empty",
    doc: hostCheck(`{type: "http", url: "http://x", expect_status: »[]}`),
    message: "hosts.web1.check.expect_status",
  },
  {
    name: "http follow_redirects",
    doc: hostCheck(`{type: "http", url: "http://x", follow_redirects: »21}`),
    message: "hosts.web1.check.follow_redirects",
  },
  {
    name: "http warn duration",
    doc: hostCheck(`{type: "http", url: "http://x", warn: »"2 s"}`),
    message: "hosts.web1.check.warn",
  },
  {
    name: "http body on a GET",
    doc: hostCheck(`{type: "http", url: "http://x", body: »"x"}`),
    message: `hosts.web1.check.body: a GET request has no body`,
  },
  {
    name: "http expect_body on a HEAD",
    doc: hostCheck(`{type: "http", url: "http://x", method: "HEAD", expect_body: »"ok"}`),
    message: "a HEAD response has no body to look into",
  },
  {
    name: "http expect_body_regex backreference",
    doc: hostCheck(`{type: "http", url: "http://x", expect_body_regex: »"(a+)\\\\1"}`),
    message: "hosts.web1.check.expect_body_regex: not an RE2 pattern: invalid escape sequence",
  },
  {
    name: "http expect_body_regex lookahead",
    doc: hostCheck(`{type: "http", url: "http://x", expect_body_regex: »"ok(?=!)"}`),
    message: "not an RE2 pattern: invalid or unsupported Perl syntax: `(?=`",
  },
  {
    name: "http expect_body_regex lookbehind",
    doc: hostCheck(`{type: "http", url: "http://x", expect_body_regex: »"(?<!not )ok"}`),
    message: "not an RE2 pattern",
  },
  {
    name: "http header name",
    doc: hostCheck(`{type: "http", url: "http://x", headers: {"Bad Name": »"v"}}`),
    message: `invalid HTTP header name "Bad Name"`,
  },
  {
    name: "http header value with a line break, never shown",
    doc: hostCheck(
      `{type: "http", url: "http://x", headers: {Authorization: »"Bearer s3cret\\r\\nX-Evil: 1"}}`,
    ),
    message: "header Authorization: a value may not hold a line break or NUL",
    notMessage: "s3cret",
  },
  {
    name: "http header the check sets",
    doc: hostCheck(`{type: "http", url: "http://x", headers: {"Content-Length": »"5"}}`),
    message: "header Content-Length is set by the check itself",
  },
  {
    name: "http header value type",
    doc: hostCheck(`{type: "http", url: "http://x", headers: {"X-A": »1}}`),
    message: `hosts.web1.check.headers."X-A"`,
  },
  {
    name: "http ca_file missing",
    doc: hostCheck(`{type: "http", url: "https://x", ca_file: »"/nonexistent/lookout/ca.pem"}`),
    message: `hosts.web1.check.ca_file: cannot read ca_file "/nonexistent/lookout/ca.pem" (ENOENT)`,
  },
  {
    name: "http ca_file not PEM",
    doc: hostCheck(`{type: "http", url: "https://x", ca_file: »"/etc/passwd"}`),
    message: `ca_file "/etc/passwd" holds no PEM certificate`,
  },
  {
    name: "http sni an IP literal",
    doc: hostCheck(`{type: "http", url: "https://x", sni: »"127.0.0.1"}`),
    message: "sni is a host name",
  },
  {
    name: "tls verify type",
    doc: hostCheck(`{type: "tls", address: "a:443", verify: »"no"}`),
    message: "hosts.web1.check.verify",
  },
  {
    name: "tls ca_file missing",
    doc: hostCheck(`{type: "tls", address: "a:443", ca_file: »"/nonexistent/lookout/ca.pem"}`),
    message: `cannot read ca_file "/nonexistent/lookout/ca.pem" (ENOENT)`,
  },
  {
    name: "tls sni empty",
    doc: hostCheck(`{type: "tls", address: "a:443", sni: »""}`),
    message: "hosts.web1.check.sni",
  },
  {
    name: "dns server missing",
    doc: hostCheck(`»{type: "dns", name: "x"}`),
    message: `missing required field "server"`,
  },
  {
    name: "dns server form",
    doc: hostCheck(`{type: "dns", server: »"8.8.8.8", name: "x"}`),
    message: "hosts.web1.check.server",
  },
  {
    name: "dns name empty",
    doc: hostCheck(`{type: "dns", server: "127.0.0.1:53", name: »""}`),
    message: "hosts.web1.check.name",
  },
  { name: "icmp host missing", doc: hostCheck(`»{type: "icmp"}`), message: `missing required field "host"` },
  {
    name: "tls address missing",
    doc: hostCheck(`»{type: "tls"}`),
    message: `missing required field "address"`,
  },
  {
    name: "tls warn_within",
    doc: hostCheck(`{type: "tls", address: "a:443", warn_within: »"2w"}`),
    message: "hosts.web1.check.warn_within",
  },
  {
    name: "snmp oid missing",
    doc: hostCheck(`»{type: "snmp", address: "a", community: "public"}`),
    message: `missing required field "oid"`,
  },
  {
    name: "snmp neither community nor user",
    doc: hostCheck(`»{type: "snmp", address: "a", oid: "1.3.6"}`),
    message: `exactly one of "community" (v2c) or "user" (v3), found neither`,
  },
  {
    name: "snmp both community and user",
    doc: hostCheck(`»{type: "snmp", address: "a", oid: "1.3.6", community: "public", user: "admin"}`),
    message: `exactly one of "community" (v2c) or "user" (v3), found both`,
  },
  {
    name: "snmp community empty",
    doc: hostCheck(`{type: "snmp", address: "a", oid: "1.3.6", community: »""}`),
    message: "hosts.web1.check.community",
  },
  {
    name: "snmp auth_proto",
    doc: hostCheck(`{type: "snmp", address: "a", oid: "1", user: "u", auth_proto: »"SHA1"}`),
    message: "hosts.web1.check.auth_proto",
  },
  {
    name: "snmp priv_proto",
    doc: hostCheck(`{type: "snmp", address: "a", oid: "1", user: "u", priv_proto: »"3DES"}`),
    message: "hosts.web1.check.priv_proto",
  },
  {
    name: "snmp expect with warn",
    doc: hostCheck(`{type: "snmp", address: "a", oid: "1", community: "c", expect: "up", warn: »"5"}`),
    message: "hosts.web1.check.warn",
  },
  {
    name: "snmp expect with crit",
    doc: hostCheck(`{type: "snmp", address: "a", oid: "1", community: "c", crit: »"9", expect: "up"}`),
    message: "hosts.web1.check.crit",
  },
  {
    name: "legacy path missing",
    doc: hostCheck(`»{type: "legacy", args: ["-w", "5"]}`),
    message: `missing required field "path"`,
  },
  {
    name: "legacy args type",
    doc: hostCheck(`{type: "legacy", path: "/bin/true", args: »"-w 5"}`),
    message: "hosts.web1.check.args",
  },
  {
    name: "wasm module missing",
    doc: hostCheck(`»{type: "wasm"}`),
    message: `missing required field "module"`,
  },
  {
    name: "command check command missing",
    doc: hostCheck(`»{type: "command"}`),
    message: `missing required field "command"`,
  },
  {
    name: "passive freshness missing",
    doc: hostCheck(`»{type: "passive"}`),
    message: `missing required field "freshness_threshold"`,
  },
  {
    name: "passive stale_status",
    doc: hostCheck(`{type: "passive", freshness_threshold: "5m", stale_status: »"OK"}`),
    message: "hosts.web1.check.stale_status",
  },
  // #Contact
  {
    name: "unknown contact type",
    doc: withHost(`contacts: ops: {type: »"pager"}`),
    message: `contacts.ops.type: unknown contact type "pager"; allowed types: command, email, telegram, webhook`,
  },
  {
    name: "email address missing",
    doc: withHost(`contacts: »ops: {type: "email"}`),
    message: `contacts.ops.address: missing required field "address"`,
  },
  {
    name: "webhook url empty",
    doc: withHost(`contacts: ops: {type: "webhook", url: »""}`),
    message: "contacts.ops.url",
  },
  {
    name: "command contact command missing",
    doc: withHost(`contacts: »ops: {type: "command"}`),
    message: `missing required field "command"`,
  },
  {
    name: "telegram chat_id missing",
    doc: withHost(`contacts: »ops: {type: "telegram"}`),
    message: `missing required field "chat_id"`,
  },
  {
    name: "contact label key",
    doc: withHost(`contacts: ops: {type: "email", address: "a@b", labels: »Team: "x"}`),
    message: `label key "Team" must match`,
  },
  // #NotificationPolicy, #EscalationLevel, #Window
  {
    name: "levels missing",
    doc: withHost(`notifications: »p: {period: []}`),
    message: `notifications.p.levels: missing required field "levels"`,
  },
  { name: "levels empty", doc: withHost(`notifications: p: levels: »[]`), message: "notifications.p.levels" },
  {
    name: "level contacts empty",
    doc: withHost(`notifications: p: levels: [{contacts: »[]}]`),
    message: "notifications.p.levels.0.contacts",
  },
  {
    name: "level threshold negative",
    doc: withHost(`notifications: p: levels: [{contacts: ["x"], threshold: »-1}]`),
    message: "notifications.p.levels.0.threshold",
  },
  {
    name: "level disabled_kinds",
    doc: withHost(`notifications: p: levels: [{contacts: ["x"], disabled_kinds: [»"ACK"]}]`),
    message: "notifications.p.levels.0.disabled_kinds.0",
  },
  {
    name: "level renotify_interval",
    doc: withHost(`notifications: p: levels: [{contacts: ["x"], renotify_interval: »"often"}]`),
    message: "notifications.p.levels.0.renotify_interval",
  },
  {
    name: "window weekday",
    doc: withHost(
      `notifications: p: {period: [{weekday: »"mon", start: "09:00", end: "17:00"}], levels: [{contacts: ["x"]}]}`,
    ),
    message: "notifications.p.period.0.weekday",
  },
  {
    name: "window start 24:00",
    doc: withHost(
      `notifications: p: {period: [{weekday: "monday", start: »"24:00", end: "24:00"}], levels: [{contacts: ["x"]}]}`,
    ),
    message: "notifications.p.period.0.start",
  },
  {
    name: "window end 25:00",
    doc: withHost(
      `notifications: p: {period: [{weekday: "monday", start: "09:00", end: »"25:00"}], levels: [{contacts: ["x"]}]}`,
    ),
    message: "notifications.p.period.0.end",
  },
  {
    name: "window start form",
    doc: withHost(
      `notifications: p: {period: [{weekday: "monday", start: »"9:00", end: "17:00"}], levels: [{contacts: ["x"]}]}`,
    ),
    message: "notifications.p.period.0.start",
  },
  // #View
  {
    name: "view selector missing",
    doc: withHost(`views: »prod: {description: "x"}`),
    message: `views.prod.selector: missing required field "selector"`,
  },
  // Sinks
  {
    name: "unknown sink type",
    doc: withHost(`sinks: s: {type: »"kafka"}`),
    message: `sinks.s.type: unknown sink type "kafka"; allowed types: archive, clickhouse, exec, file, http, otlp, remote_write`,
  },
  {
    name: "sink input",
    doc: withHost(`sinks: s: {type: "http", url: "http://x", input: »"logs"}`),
    message: "sinks.s.input",
  },
  {
    name: "sink batch_size 0",
    doc: withHost(`sinks: s: {type: "http", url: "http://x", batch_size: »0}`),
    message: "sinks.s.batch_size",
  },
  {
    name: "sink flush_interval",
    doc: withHost(`sinks: s: {type: "http", url: "http://x", flush_interval: »"soon"}`),
    message: "sinks.s.flush_interval",
  },
  {
    name: "sink url missing",
    doc: withHost(`sinks: »s: {type: "remote_write"}`),
    message: `sinks.s.url: missing required field "url"`,
  },
  {
    name: "clickhouse table",
    doc: withHost(`sinks: s: {type: "clickhouse", url: "http://x", table: »"perf-data"}`),
    message: "sinks.s.table",
  },
  {
    name: "archive input metrics",
    doc: withHost(`sinks: s: {type: "archive", url: "http://x", input: »"metrics"}`),
    message: "sinks.s.input",
  },
  {
    name: "archive segment_bytes 0",
    doc: withHost(`sinks: s: {type: "archive", url: "http://x", segment_bytes: »0}`),
    message: "sinks.s.segment_bytes",
  },
  {
    name: "exec command empty",
    doc: withHost(`sinks: s: {type: "exec", command: »[]}`),
    message: "sinks.s.command",
  },
  {
    name: "file path missing",
    doc: withHost(`sinks: »s: {type: "file"}`),
    message: `missing required field "path"`,
  },
  {
    name: "file rotate_bytes 0",
    doc: withHost(`sinks: s: {type: "file", path: "/tmp/x", rotate_bytes: »0}`),
    message: "sinks.s.rotate_bytes",
  },
  {
    name: "http headers value type",
    doc: withHost(`sinks: s: {type: "http", url: "http://x", headers: {"X-A": »1}}`),
    message: `sinks.s.headers."X-A"`,
  },
  // Semantic rules
  {
    name: "check names an unknown command",
    doc: hostCheck(`{type: "command", command: »"ping"}`),
    message: `hosts.web1.check.command: unknown command "ping"; no commands are defined`,
  },
  {
    name: "contact names an unknown command",
    doc: withHost(`commands: mail: line: "mail"\ncontacts: c: {type: "command", command: »"sms"}`),
    message: `contacts.c.command: unknown command "sms"; defined: mail`,
  },
  {
    name: "host names an unknown policy",
    doc: `hosts: web1: {address: "a", check: ${TCP}, notification: »"pager"}\n`,
    message: `hosts.web1.notification: unknown notification policy "pager"`,
  },
  {
    name: "escalation names an unknown contact",
    doc: withHost(`notifications: p: levels: [{contacts: [»"bob"]}]`),
    message: `notifications.p.levels.0.contacts.0: unknown contact "bob"`,
  },
  {
    name: "unknown parent",
    doc: `hosts: web1: {address: "a", check: ${TCP}, parents: [»"gw"]}\n`,
    message: `unknown parent host "gw"`,
  },
  {
    name: "parent cycle",
    doc: `hosts: {\n\ta: {address: "a", check: ${TCP}, parents: [»"b"]}\n\tb: {address: "b", check: ${TCP}, parents: ["a"]}\n}\n`,
    message: "hosts.a.parents.0: parent cycle: a -> b -> a",
  },
  {
    name: "view selector syntax",
    doc: withHost(`views: prod: selector: »"env in ()"`),
    message: `invalid selector "env in ()"`,
  },
  {
    name: "sink selector syntax",
    doc: withHost(`sinks: s: {type: "http", url: "http://x", selector: »"env=="}`),
    message: `invalid selector "env=="`,
  },
  {
    name: "sink URL invalid",
    doc: withHost(`sinks: s: {type: "http", url: »"not a url"}`),
    message: "sinks.s.url: not a valid URL",
  },
  {
    name: "sink URL scheme",
    doc: withHost(`sinks: s: {type: "remote_write", url: »"ftp://u:pw@x/"}`),
    message: `sinks.s.url: URL scheme "ftp:" is not supported`,
  },
  {
    name: "sink header name",
    doc: withHost(`sinks: s: {type: "otlp", url: "http://x", headers: "Bad Header": »"v"}`),
    message: `invalid HTTP header name "Bad Header"`,
  },
  {
    name: "sink header value line break",
    doc: withHost(`sinks: s: {type: "http", url: "http://x", headers: "X-Token": »"a\\r\\nInjected: 1"}`),
    message: "header X-Token: a value may not hold a line break or NUL",
  },
  {
    name: "sink cursor",
    doc: withHost(`sinks: s: {type: "file", path: "/tmp/x", cursor: »"yesterday"}`),
    message: `invalid cursor "yesterday"`,
  },
  {
    name: "remote_write events",
    doc: withHost(`sinks: s: {type: "remote_write", url: "http://x", input: »"events"}`),
    message: "a remote_write sink carries metrics only",
  },
  {
    name: "clickhouse table name",
    doc: withHost(`sinks: s: {type: "clickhouse", url: "http://x", table: »"perf-data"}`),
    message: "sinks.s.table",
  },
  {
    name: "window end not after start",
    doc: withHost(
      `contacts: x: {type: "email", address: "a@b"}\nnotifications: p: {period: [{weekday: "monday", start: "17:00", end: »"09:00"}], levels: [{contacts: ["x"]}]}`,
    ),
    message: `end "09:00" must be after start "17:00"`,
  },
  {
    name: "window end past 24:00",
    doc: withHost(
      `contacts: x: {type: "email", address: "a@b"}\nnotifications: p: {period: [{weekday: "monday", start: "17:00", end: »"24:30"}], levels: [{contacts: ["x"]}]}`,
    ),
    message: `end "24:30" is past 24:00`,
  },
  // -config-profile demo
  {
    name: "demo: command check",
    profile: "demo",
    doc: hostCheck(`{type: »"command", command: "x"}`),
    message: `check type "command" is not supported under -config-profile demo; allowed types: dns, http, icmp, passive, snmp, tcp, tls`,
  },
  {
    name: "demo: ca_file",
    profile: "demo",
    doc: hostCheck(`{type: "tls", address: "a:443", ca_file: »"/etc/ssl/certs/ca-certificates.crt"}`),
    message: `"ca_file" is not supported under -config-profile demo (it reads a local file)`,
  },
  {
    name: "demo: legacy check",
    profile: "demo",
    doc: hostCheck(`{type: »"legacy", path: "/bin/true"}`),
    message: `check type "legacy" is not supported`,
  },
  {
    name: "demo: wasm check",
    profile: "demo",
    doc: hostCheck(`{type: »"wasm", module: "/tmp/x.wasm"}`),
    message: `check type "wasm" is not supported`,
  },
  {
    name: "demo: command contact",
    profile: "demo",
    doc: withHost(`contacts: c: {type: »"command", command: "x"}`),
    message: `contact type "command" is not supported`,
  },
  {
    name: "demo: exec sink",
    profile: "demo",
    doc: withHost(`sinks: s: {type: »"exec", command: ["x"]}`),
    message: `sink type "exec" is not supported`,
  },
  {
    name: "demo: file sink",
    profile: "demo",
    doc: withHost(`sinks: s: {type: »"file", path: "/tmp/x"}`),
    message: `sink type "file" is not supported`,
  },
  {
    name: "demo: commands block",
    profile: "demo",
    doc: withHost(`»commands: x: line: "true"`),
    message: "a non-empty commands block is not supported",
  },
  {
    name: "demo: file URL",
    profile: "demo",
    doc: withHost(`sinks: s: {type: "http", url: »"file:///etc/x"}`),
    message: `"file:" URLs are not supported`,
  },
  // The document itself
  {
    name: "a scalar document",
    doc: "»42\n",
    message: "the document must be a struct of top-level fields, not an int",
  },
  {
    name: "hosts not a struct",
    doc: "hosts: {}\ncontacts: »5\n",
    message: "contacts: invalid value 5; want a struct of contacts",
  },
  {
    name: "a service that is not a struct",
    doc: `hosts: a: {address: "a", check: ${TCP}, services: s: »"x"}\n`,
    message: `hosts.a.services.s: invalid value "x"; want a struct (one service)`,
  },
  {
    name: "unquoted label value (a reference)",
    doc: `hosts: web1: {address: "a", labels: env: »prod, check: ${TCP}}\n`,
    message: `hosts.web1.labels.env: reference "prod" not found`,
  },
  { name: "syntax error", doc: `hosts: {\n\tweb1: »: 1\n}\n`, message: "" },
  { name: "conflict inside the user's document", doc: `hosts: {}\nx: »1\nx: 2\n`, message: "x" },
];

/** Valid documents and what they decode to (checked by loader.test.ts). */
export const VALID_DOCS: readonly { readonly name: string; readonly doc: string }[] = [
  { name: "empty hosts", doc: "hosts: {}\n" },
  { name: "one tcp host", doc: withHost("") },
  {
    name: "every check type",
    doc: `commands: ping: {line: "ping -c1 $HOSTADDRESS$", shell: true}
hosts: web1: {
	address: "10.0.0.1"
	check: {type: "icmp", host: "10.0.0.1"}
	services: {
		a: check: {type: "tcp", address: "[::1]:80"}
		b: check: {type: "http", url: "http://127.0.0.1/"}
		c: check: {type: "dns", server: "127.0.0.1:53", name: "example.test"}
		d: check: {type: "tls", address: "127.0.0.1:443"}
		d2: check: {type: "tls", address: "127.0.0.1:443", verify: false, sni: "a.test", ca_file: "/etc/ssl/certs/ca-certificates.crt"}
		b2: check: {
			type: "http", url: "https://127.0.0.1/health", method: "POST", body: "{}"
			headers: {Authorization: "Bearer x", "Content-Type": "application/json"}
			expect_status: [200, "202-204"], expect_body: "ok", expect_body_regex: "(?i)^ok$"
			follow_redirects: 3, tls_verify: true, ca_file: "/etc/ssl/certs/ca-certificates.crt", sni: "a.test"
			warn: "500ms", crit: "2s"
		}
		e: check: {type: "snmp", address: "127.0.0.1", oid: "1.3.6.1", community: "public", warn: "10", crit: "20"}
		f: check: {type: "snmp", address: "127.0.0.1", oid: "1.3.6.1", user: "u", auth_proto: "SHA256", priv_proto: "AES", expect: "up"}
		g: check: {type: "legacy", path: "/usr/lib/nagios/plugins/check_dummy", args: ["0"]}
		h: check: {type: "wasm", module: "/opt/checks/x.wasm"}
		i: check: {type: "command", command: "ping"}
		j: check: {type: "passive", freshness_threshold: "5m", stale_status: "CRITICAL"}
	}
}
`,
  },
  {
    name: "CUE features: references, definitions, comprehensions",
    doc: `_web: {
	_ip:     string
	address: _ip
	check: {type: "tcp", address: "\\(_ip):80"}
	labels: tier: "web"
}
hosts: {
	for i in [1, 2, 3] {
		"web\\(i)": _web & {_ip: "10.0.0.\\(i)"}
	}
}
let p = "oncall"
contacts: ops: {type: "email", address: "ops@example.test"}
notifications: (p): levels: [{contacts: ["ops"]}]
`,
  },
  {
    // CUE fills in \`type\` when only one branch fits the fields written: \`url\` is http's alone.
    name: "check type implied by its fields",
    doc: hostCheck(`{url: "http://127.0.0.1/"}`),
  },
  {
    name: "window ending at 24:00",
    doc: withHost(`contacts: x: {type: "email", address: "a@b"}
notifications: p: {period: [{weekday: "sunday", start: "00:00", end: "24:00"}], levels: [{contacts: ["x"]}]}`),
  },
];

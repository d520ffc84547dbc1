import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ContactConfig, HostConfig, ServiceConfig } from "../model/config.js";
import { DEFAULT_SCHEDULE } from "../model/config.js";
import { createMacroResolver, type MacroContext } from "./context.js";
import { expandMacros } from "./expand.js";

const known: Record<string, string> = { A: "alpha", B: "", EMPTY: "" };
const simple = (name: string) => known[name];

const syntaxCases: [string, string][] = [
  ["plain text", "plain text"],
  ["$A$", "alpha"],
  ["x$A$y$A$z", "xalphayalphaz"],
  ["$$", "$"],
  ["cost: $$5", "cost: $5"],
  ["$$A$$", "$A$"],
  ["$UNKNOWN$ stays", "$UNKNOWN$ stays"],
  ["$5 and $A$", "$5 and alpha"],
  ["trailing $", "trailing $"],
  ["$A", "$A"],
  ["$B$|$EMPTY$", "|"],
  ["$not a name$", "$not a name$"],
  ["$$$A$", "$alpha"],
];

describe("expandMacros", () => {
  for (const [text, want] of syntaxCases) {
    it(`${JSON.stringify(text)} → ${JSON.stringify(want)}`, () =>
      assert.equal(expandMacros(text, simple), want));
  }
});

const check = { ...DEFAULT_SCHEDULE, type: "legacy" as const, path: "/bin/true", args: [] };
const host: HostConfig = {
  name: "web1",
  address: "10.0.0.5",
  parents: [],
  vars: { PASSWORD: "s3cret", OS: "linux" },
  check: { ...check, maxAttempts: 5 },
  services: new Map(),
  notification: "",
  zone: "dc1",
  labels: {},
};
const service: ServiceConfig = {
  host: "web1",
  name: "http",
  vars: { URL: "/health" },
  check: { ...check, maxAttempts: 4 },
  notification: "",
  zone: "dc1",
  labels: {},
};
const contact: ContactConfig = { name: "ops", labels: {}, type: "email", address: "ops@example.org" };
const now = Date.UTC(2026, 10, 21, 1, 36, 37); // Sat Nov 21 2026 01:36:37 UTC
const full: MacroContext = {
  host,
  service,
  resources: { USER1: "/usr/lib/nagios/plugins", USER3: "x" },
  args: ["first", "second"],
  now,
  hostState: { state: "UP", stateType: "HARD", attempt: 1, output: "PING OK", lastCheck: now - 5000 },
  serviceState: {
    state: "CRITICAL",
    stateType: "SOFT",
    attempt: 2,
    output: "HTTP CRITICAL",
    longOutput: "line2",
    perfdata: [{ label: "time", value: 0.5, uom: "s", warn: "1", crit: "2" }],
    lastCheck: now - 1000,
    lastStateChange: now - 90_061_000,
    latencyMs: 12,
    executionMs: 1500,
    ackAuthor: "ann",
    ackComment: "on it",
  },
  contact,
  notification: { type: "PROBLEM", author: "bob", comment: "hi", number: 3 },
};
const bare: MacroContext = { host, now };

const resolverCases: { macro: string; full: string | undefined; bare: string | undefined }[] = [
  { macro: "HOSTNAME", full: "web1", bare: "web1" },
  { macro: "HOSTDISPLAYNAME", full: "web1", bare: "web1" },
  { macro: "HOSTADDRESS", full: "10.0.0.5", bare: "10.0.0.5" },
  { macro: "HOSTZONE", full: "dc1", bare: "dc1" },
  { macro: "HOSTSTATE", full: "UP", bare: "" },
  { macro: "HOSTSTATEID", full: "0", bare: "" },
  { macro: "HOSTSTATETYPE", full: "HARD", bare: "" },
  { macro: "HOSTATTEMPT", full: "1", bare: "" },
  { macro: "MAXHOSTATTEMPTS", full: "5", bare: "5" },
  { macro: "HOSTOUTPUT", full: "PING OK", bare: "" },
  { macro: "LASTHOSTCHECK", full: String(now / 1000 - 5), bare: "" },
  { macro: "SERVICEDESC", full: "http", bare: "" },
  { macro: "SERVICESTATE", full: "CRITICAL", bare: "" },
  { macro: "SERVICESTATEID", full: "2", bare: "" },
  { macro: "SERVICESTATETYPE", full: "SOFT", bare: "" },
  { macro: "SERVICEATTEMPT", full: "2", bare: "" },
  { macro: "MAXSERVICEATTEMPTS", full: "4", bare: "" },
  { macro: "SERVICEOUTPUT", full: "HTTP CRITICAL", bare: "" },
  { macro: "LONGSERVICEOUTPUT", full: "line2", bare: "" },
  { macro: "SERVICEPERFDATA", full: "time=0.5s;1;2", bare: "" },
  { macro: "LASTSERVICECHECK", full: String(now / 1000 - 1), bare: "" },
  { macro: "LASTSERVICESTATECHANGE", full: String(now / 1000 - 90061), bare: "" },
  { macro: "SERVICEDURATION", full: "1d 1h 1m 1s", bare: "" },
  { macro: "SERVICEDURATIONSEC", full: "90061", bare: "" },
  { macro: "SERVICELATENCY", full: "0.012", bare: "" },
  { macro: "SERVICEEXECUTIONTIME", full: "1.500", bare: "" },
  { macro: "SERVICEACKAUTHOR", full: "ann", bare: "" },
  { macro: "SERVICEACKCOMMENT", full: "on it", bare: "" },
  { macro: "TIMET", full: String(now / 1000), bare: String(now / 1000) },
  { macro: "LONGDATETIME", full: "Sat Nov 21 01:36:37 UTC 2026", bare: "Sat Nov 21 01:36:37 UTC 2026" },
  { macro: "SHORTDATETIME", full: "11-21-2026 01:36:37", bare: "11-21-2026 01:36:37" },
  { macro: "DATE", full: "11-21-2026", bare: "11-21-2026" },
  { macro: "TIME", full: "01:36:37", bare: "01:36:37" },
  { macro: "CONTACTNAME", full: "ops", bare: "" },
  { macro: "CONTACTEMAIL", full: "ops@example.org", bare: "" },
  { macro: "NOTIFICATIONTYPE", full: "PROBLEM", bare: "" },
  { macro: "NOTIFICATIONAUTHOR", full: "bob", bare: "" },
  { macro: "NOTIFICATIONCOMMENT", full: "hi", bare: "" },
  { macro: "NOTIFICATIONNUMBER", full: "3", bare: "" },
  { macro: "ARG1", full: "first", bare: "" },
  { macro: "ARG2", full: "second", bare: "" },
  { macro: "ARG3", full: "", bare: "" },
  { macro: "USER1", full: "/usr/lib/nagios/plugins", bare: "" },
  { macro: "USER2", full: "", bare: "" },
  { macro: "_HOSTPASSWORD", full: "s3cret", bare: "s3cret" },
  { macro: "_HOSTNOPE", full: "", bare: "" },
  { macro: "_SERVICEURL", full: "/health", bare: "" },
  // Unknown names stay as written (undefined here).
  { macro: "ARG0", full: undefined, bare: undefined },
  { macro: "HOSTFOO", full: undefined, bare: undefined },
  { macro: "LASTHOSTSTATE", full: undefined, bare: undefined },
  { macro: "HOSTMAXATTEMPTS", full: undefined, bare: undefined },
  { macro: "hostname", full: undefined, bare: undefined },
];

describe("createMacroResolver", () => {
  const f = createMacroResolver(full);
  const b = createMacroResolver(bare);
  for (const c of resolverCases) {
    it(`$${c.macro}$`, () => {
      assert.equal(f(c.macro), c.full);
      assert.equal(b(c.macro), c.bare);
    });
  }

  it("gives $CONTACTEMAIL$ of a command contact from its address", () => {
    const r = createMacroResolver({
      host,
      now,
      contact: {
        name: "pager",
        labels: {},
        type: "command",
        command: "x",
        args: [],
        address: "pager@example.org",
      },
    });
    assert.equal(r("CONTACTEMAIL"), "pager@example.org");
  });

  it("expands a notification template end to end", () => {
    const text =
      "[$NOTIFICATIONTYPE$] $HOSTNAME$/$SERVICEDESC$ is $SERVICESTATE$ at $LONGDATETIME$ ($$5, $BOGUS$)";
    assert.equal(
      expandMacros(text, createMacroResolver(full)),
      "[PROBLEM] web1/http is CRITICAL at Sat Nov 21 01:36:37 UTC 2026 ($5, $BOGUS$)",
    );
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Command } from "../model/commands.js";
import { loggedForm, preparePluginResult } from "./plugin-result.js";
import type { SubmittedCommand } from "./validate.js";

const AT = Date.UTC(2026, 0, 1);
const T = AT - 5000;

const cases: { name: string; submitted: SubmittedCommand; compact: boolean; applied: Command }[] = [
  {
    name: "a passive result from the API: logged compact, parsed on the way in",
    submitted: {
      type: "ProcessCheckResult",
      parse: true,
      result: {
        host: "web",
        service: "http",
        exitStatus: 2,
        output: "CRITICAL - 503 | time=0.5s;1;2\nretry 1\nretry 2",
        checkedAt: T,
        durationMs: 0,
        source: "passive",
      },
    },
    compact: true,
    applied: {
      type: "ProcessCheckResult",
      at: AT,
      result: {
        host: "web",
        service: "http",
        exitStatus: 2,
        output: "CRITICAL - 503",
        longOutput: "retry 1\nretry 2",
        perfdata: [{ label: "time", value: 0.5, uom: "s", warn: "1", crit: "2" }],
        checkedAt: T,
        durationMs: 0,
        source: "passive",
      },
    },
  },
  {
    name: "a host result, no service",
    submitted: {
      type: "ProcessCheckResult",
      parse: true,
      result: { host: "web", exitStatus: 0, output: "UP", checkedAt: T, durationMs: 0, source: "passive" },
    },
    compact: true,
    applied: {
      type: "ProcessCheckResult",
      at: AT,
      result: {
        host: "web",
        exitStatus: 0,
        output: "UP",
        longOutput: "",
        perfdata: [],
        checkedAt: T,
        durationMs: 0,
        source: "passive",
      },
    },
  },
  {
    name: "an unparsed active result keeps its object form",
    submitted: {
      type: "ProcessCheckResult",
      parse: true,
      result: {
        host: "db",
        service: "disk",
        exitStatus: 1,
        output: "WARN | used=91%",
        checkedAt: T,
        durationMs: 12,
        source: "active",
      },
    },
    compact: false,
    applied: {
      type: "ProcessCheckResult",
      at: AT,
      result: {
        host: "db",
        service: "disk",
        exitStatus: 1,
        output: "WARN",
        longOutput: "",
        perfdata: [{ label: "used", value: 91, uom: "%", warn: "", crit: "" }],
        checkedAt: T,
        durationMs: 12,
        source: "active",
      },
    },
  },
  {
    name: "a parsed result and other commands pass through, stamped",
    submitted: { type: "RemoveAcknowledgement", target: { object: { host: "db" } } },
    compact: false,
    applied: { type: "RemoveAcknowledgement", at: AT, target: { object: { host: "db" } } },
  },
];

describe("results logged for the writer to parse", () => {
  for (const c of cases) {
    it(c.name, () => {
      const logged = loggedForm(c.submitted);
      assert.equal(Array.isArray(logged), c.compact);
      assert.deepEqual(preparePluginResult(JSON.parse(JSON.stringify(logged)), AT), c.applied);
    });
  }
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseCommandLine } from "./parse.js";

const id = () => "dt-1";

describe("parseCommandLine", () => {
  const good: { line: string; command: unknown }[] = [
    {
      line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;web;http;2;CRITICAL - down; really|t=1s",
      command: {
        type: "ProcessCheckResult",
        parse: true,
        result: {
          host: "web",
          service: "http",
          exitStatus: 2,
          output: "CRITICAL - down; really|t=1s",
          checkedAt: 1_700_000_000_000,
          durationMs: 0,
          source: "passive",
        },
      },
    },
    {
      line: "[1700000000] PROCESS_HOST_CHECK_RESULT;web;0;UP\\nsecond line",
      command: {
        type: "ProcessCheckResult",
        parse: true,
        result: {
          host: "web",
          service: undefined,
          exitStatus: 0,
          output: "UP\nsecond line",
          checkedAt: 1_700_000_000_000,
          durationMs: 0,
          source: "passive",
        },
      },
    },
    {
      line: "[1700000000] ACKNOWLEDGE_SVC_PROBLEM;web;http;2;1;1;ops;on it",
      command: {
        type: "AcknowledgeProblem",
        target: { object: { host: "web", service: "http" } },
        sticky: true,
        author: "ops",
        comment: "on it",
      },
    },
    {
      line: "[1700000000] ACKNOWLEDGE_HOST_PROBLEM;web;0;1;0;ops;x",
      command: {
        type: "AcknowledgeProblem",
        target: { object: { host: "web" } },
        sticky: false,
        author: "ops",
        comment: "x",
      },
    },
    // A host's return_code is its state (0 UP, 1 DOWN): DOWN is logged as a plugin's CRITICAL.
    {
      line: "[1700000000] PROCESS_HOST_CHECK_RESULT;web;1;down",
      command: {
        type: "ProcessCheckResult",
        parse: true,
        result: {
          host: "web",
          service: undefined,
          exitStatus: 2,
          output: "down",
          checkedAt: 1_700_000_000_000,
          durationMs: 0,
          source: "passive",
        },
      },
    },
    // A service's is a plugin's exit status.
    {
      line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;web;http;1;WARNING",
      command: {
        type: "ProcessCheckResult",
        parse: true,
        result: {
          host: "web",
          service: "http",
          exitStatus: 1,
          output: "WARNING",
          checkedAt: 1_700_000_000_000,
          durationMs: 0,
          source: "passive",
        },
      },
    },
    // Nagios' sticky argument: 2 is sticky, 1 (and 0) a normal acknowledgement.
    {
      line: "[1700000000] ACKNOWLEDGE_SVC_PROBLEM;web;http;1;1;1;ops;normal",
      command: {
        type: "AcknowledgeProblem",
        target: { object: { host: "web", service: "http" } },
        sticky: false,
        author: "ops",
        comment: "normal",
      },
    },
    {
      line: "[1700000000] ACKNOWLEDGE_HOST_PROBLEM;web;1;1;0;ops;normal",
      command: {
        type: "AcknowledgeProblem",
        target: { object: { host: "web" } },
        sticky: false,
        author: "ops",
        comment: "normal",
      },
    },
    {
      line: "[1700000000] ACKNOWLEDGE_HOST_PROBLEM;web;2;1;0;ops;sticky",
      command: {
        type: "AcknowledgeProblem",
        target: { object: { host: "web" } },
        sticky: true,
        author: "ops",
        comment: "sticky",
      },
    },
    {
      line: "[1700000000] REMOVE_SVC_ACKNOWLEDGEMENT;web;http",
      command: { type: "RemoveAcknowledgement", target: { object: { host: "web", service: "http" } } },
    },
    {
      line: "[1700000000] REMOVE_HOST_ACKNOWLEDGEMENT;web",
      command: { type: "RemoveAcknowledgement", target: { object: { host: "web" } } },
    },
    {
      line: "[1700000000] SCHEDULE_SVC_DOWNTIME;web;http;1700000000;1700003600;1;0;3600;ops;patch",
      command: {
        type: "ScheduleDowntime",
        id: "dt-1",
        target: { object: { host: "web", service: "http" } },
        start: 1_700_000_000_000,
        end: 1_700_003_600_000,
        author: "ops",
        comment: "patch",
      },
    },
    {
      line: "[1700000000] SCHEDULE_HOST_DOWNTIME;web;1700000000;1700003600;1;0;3600;ops;patch",
      command: {
        type: "ScheduleDowntime",
        id: "dt-1",
        target: { object: { host: "web" } },
        start: 1_700_000_000_000,
        end: 1_700_003_600_000,
        author: "ops",
        comment: "patch",
      },
    },
    { line: "[1700000000] DEL_SVC_DOWNTIME;dt-9", command: { type: "DeleteDowntime", id: "dt-9" } },
    { line: "[1700000000] DEL_HOST_DOWNTIME;dt-9", command: { type: "DeleteDowntime", id: "dt-9" } },
    ...(
      [
        ["SCHEDULE_SVC_CHECK;web;http;1700000060", { host: "web", service: "http" }, false],
        ["SCHEDULE_FORCED_SVC_CHECK;web;http;1700000060", { host: "web", service: "http" }, true],
        ["SCHEDULE_HOST_CHECK;web;1700000060", { host: "web" }, false],
        ["SCHEDULE_FORCED_HOST_CHECK;web;1700000060", { host: "web" }, true],
      ] as const
    ).map(([line, object, force]) => ({
      line: `[1700000000] ${line}`,
      command: {
        type: "RescheduleCheck",
        target: { object },
        runAt: 1_700_000_060_000,
        force,
        author: "command-file",
      },
    })),
  ];
  for (const c of good) {
    test(c.line, () => {
      const r = parseCommandLine(c.line, id);
      assert.ok(r.ok, JSON.stringify(r));
      assert.deepEqual(r.command, c.command);
    });
  }

  const bad: { line: string; reason: RegExp }[] = [
    { line: "garbage", reason: /not a command line/ },
    { line: "PROCESS_HOST_CHECK_RESULT;web;0;UP", reason: /not a command line/ },
    { line: "[1700000000] RESTART_PROGRAM", reason: /unknown command RESTART_PROGRAM/ },
    { line: "[1700000000] PROCESS_HOST_CHECK_RESULT;web;0", reason: /takes 3 arguments, got 2/ },
    { line: "[1700000000] PROCESS_HOST_CHECK_RESULT;web;7;x", reason: /return_code must be 0, 1, 2 or 3/ },
    { line: "[1700000000] PROCESS_HOST_CHECK_RESULT;;0;x", reason: /host_name is empty/ },
    { line: "[1700000000] ACKNOWLEDGE_HOST_PROBLEM;web;yes;1;0;ops;x", reason: /sticky must be an integer/ },
    {
      line: "[1700000000] SCHEDULE_HOST_DOWNTIME;web;1700000000;1700003600;0;0;3600;ops;flex",
      reason: /only fixed downtimes/,
    },
    { line: "[1700000000] DEL_HOST_DOWNTIME;a;b", reason: /takes 1 arguments, got 2/ },
    { line: "[1700000000] SCHEDULE_SVC_CHECK;web;http", reason: /takes 3 arguments, got 2/ },
    { line: "[1700000000] SCHEDULE_HOST_CHECK;web;soon", reason: /check_time must be an integer/ },
    { line: "[1700000000] SCHEDULE_FORCED_HOST_CHECK;;1700000000", reason: /host_name is empty/ },
    { line: "[1700000000] SCHEDULE_HOST_CHECK;web;-5", reason: /not a valid time/ },
  ];
  for (const c of bad) {
    test(`refuses ${JSON.stringify(c.line)}`, () => {
      const r = parseCommandLine(c.line, id);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.reason, c.reason);
    });
  }
});

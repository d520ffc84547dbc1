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
        notify: true,
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
        notify: true,
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
        notify: true,
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
        notify: true,
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
        notify: true,
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
    {
      line: "[1700000000] SCHEDULE_SVC_DOWNTIME;web;http;1700000000;1700003600;0;0;1800;ops;flex",
      command: {
        type: "ScheduleDowntime",
        id: "dt-1",
        target: { object: { host: "web", service: "http" } },
        start: 1_700_000_000_000,
        end: 1_700_003_600_000,
        author: "ops",
        comment: "flex",
        flexible: true,
        durationMs: 1_800_000,
      },
    },
    {
      line: "[1700000000] ADD_SVC_COMMENT;web;http;1;erin;moved; behind the new balancer",
      command: {
        type: "AddComment",
        id: "c-1",
        object: { host: "web", service: "http" },
        author: "erin",
        comment: "moved; behind the new balancer",
      },
    },
    {
      line: "[1700000000] ADD_HOST_COMMENT;web;0;erin;rack 4",
      command: { type: "AddComment", id: "c-1", object: { host: "web" }, author: "erin", comment: "rack 4" },
    },
    { line: "[1700000000] DEL_SVC_COMMENT;c-7", command: { type: "DeleteComment", id: "c-7" } },
    { line: "[1700000000] DEL_HOST_COMMENT;c-7", command: { type: "DeleteComment", id: "c-7" } },
    { line: "[1700000000] DEL_SVC_DOWNTIME;dt-9", command: { type: "DeleteDowntime", id: "dt-9" } },
    { line: "[1700000000] DEL_HOST_DOWNTIME;dt-9", command: { type: "DeleteDowntime", id: "dt-9" } },
    {
      line: "[1700000000] ACKNOWLEDGE_SVC_PROBLEM;web;http;2;0;1;ops;quiet",
      command: {
        type: "AcknowledgeProblem",
        target: { object: { host: "web", service: "http" } },
        sticky: true,
        notify: false,
        author: "ops",
        comment: "quiet",
      },
    },
    {
      line: "[1700000000] SEND_CUSTOM_SVC_NOTIFICATION;web;http;2;alice;call me now",
      command: {
        type: "SendCustomNotification",
        target: { object: { host: "web", service: "http" } },
        author: "alice",
        comment: "call me now",
        force: true,
      },
    },
    {
      line: "[1700000000] SEND_CUSTOM_HOST_NOTIFICATION;web;5;bob;fyi",
      command: {
        type: "SendCustomNotification",
        target: { object: { host: "web" } },
        author: "bob",
        comment: "fyi",
        force: false,
      },
    },
    ...(
      [
        ["ENABLE_SVC_CHECK;web;http", "activeChecks", true],
        ["DISABLE_SVC_CHECK;web;http", "activeChecks", false],
        ["ENABLE_HOST_CHECK;web", "activeChecks", true],
        ["DISABLE_HOST_CHECK;web", "activeChecks", false],
        ["ENABLE_PASSIVE_SVC_CHECKS;web;http", "passiveChecks", true],
        ["DISABLE_PASSIVE_SVC_CHECKS;web;http", "passiveChecks", false],
        ["ENABLE_PASSIVE_HOST_CHECKS;web", "passiveChecks", true],
        ["DISABLE_PASSIVE_HOST_CHECKS;web", "passiveChecks", false],
        ["ENABLE_SVC_NOTIFICATIONS;web;http", "notifications", true],
        ["DISABLE_SVC_NOTIFICATIONS;web;http", "notifications", false],
        ["ENABLE_HOST_NOTIFICATIONS;web", "notifications", true],
        ["DISABLE_HOST_NOTIFICATIONS;web", "notifications", false],
        ["ENABLE_SVC_FLAP_DETECTION;web;http", "flapDetection", true],
        ["DISABLE_SVC_FLAP_DETECTION;web;http", "flapDetection", false],
        ["ENABLE_HOST_FLAP_DETECTION;web", "flapDetection", true],
        ["DISABLE_HOST_FLAP_DETECTION;web", "flapDetection", false],
      ] as const
    ).map(([line, s, on]) => ({
      line: `[1700000000] ${line}`,
      command: {
        type: "SetObjectFlags",
        target: { object: line.includes("_SVC_") ? { host: "web", service: "http" } : { host: "web" } },
        flags: { [s]: on },
        author: "command-file",
      },
    })),
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
      const r = parseCommandLine(c.line, id, () => "c-1");
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
      line: "[1700000000] SCHEDULE_HOST_DOWNTIME;web;1700000000;1700003600;0;0;0;ops;flex",
      reason: /flexible downtime \(fixed=0\) needs a positive duration/,
    },
    {
      line: "[1700000000] SCHEDULE_HOST_DOWNTIME;web;1700000000;1700003600;2;0;60;ops;x",
      reason: /fixed must be 0 or 1/,
    },
    { line: "[1700000000] ADD_HOST_COMMENT;web;1;erin;", reason: /comment is empty/ },
    { line: "[1700000000] ADD_SVC_COMMENT;web;;1;erin;x", reason: /service_description is empty/ },
    { line: "[1700000000] DEL_HOST_COMMENT;", reason: /takes 1 arguments, got 0|comment_id is empty/ },
    { line: "[1700000000] DEL_HOST_DOWNTIME;a;b", reason: /takes 1 arguments, got 2/ },
    { line: "[1700000000] DISABLE_SVC_CHECK;web", reason: /takes 2 arguments, got 1/ },
    { line: "[1700000000] DISABLE_HOST_NOTIFICATIONS;web;http", reason: /takes 1 arguments, got 2/ },
    { line: "[1700000000] ENABLE_SVC_NOTIFICATIONS;web;", reason: /service_description is empty/ },
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

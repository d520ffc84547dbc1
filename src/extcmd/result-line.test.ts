import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseCommandLine } from "./parse.js";
import { parseResultLine } from "./result-line.js";

const noId = () => "id";

describe("parseResultLine", () => {
  // `fast`: read by the hot path (else left to parseCommandLine). Where read, the command is
  // exactly parseCommandLine's, and so is the return code its audit record shows.
  const cases: { line: string; fast: boolean }[] = [
    { line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;web;http;2;CRITICAL - down; really|t=1s", fast: true },
    { line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;web;http;0;", fast: true },
    { line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;web server;disk 1;3;UNKNOWN", fast: true },
    { line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;web;http;1;naïve ✓ output", fast: true },
    { line: "[1700000000] PROCESS_HOST_CHECK_RESULT;web;0;UP", fast: true },
    { line: "[1700000000] PROCESS_HOST_CHECK_RESULT;web;1;DOWN", fast: true },
    { line: "[1700000000] PROCESS_HOST_CHECK_RESULT;web;2;UNREACHABLE", fast: true },
    { line: "[0] PROCESS_HOST_CHECK_RESULT;web;2;at the epoch", fast: true },
    { line: "[99999999999] PROCESS_HOST_CHECK_RESULT;web;0;far ahead", fast: true },
    // Escapes, spaces around, odd forms: parseCommandLine's.
    { line: "[1700000000] PROCESS_HOST_CHECK_RESULT;web;0;UP\\nsecond line", fast: false },
    { line: "  [1700000000] PROCESS_SERVICE_CHECK_RESULT;web;http;0;OK", fast: false },
    { line: "[1700000000]  PROCESS_SERVICE_CHECK_RESULT;web;http;0;OK", fast: false },
    { line: "[1700000000]\tPROCESS_SERVICE_CHECK_RESULT;web;http;0;OK", fast: false },
    { line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;web;http; 1;OK", fast: false },
    { line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;web;http;01;OK", fast: false },
    { line: "[999999999999] PROCESS_SERVICE_CHECK_RESULT;web;http;0;OK", fast: false },
    // Refused lines: never read by the hot path.
    { line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;web;http;4;OK", fast: false },
    { line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;web;http;-1;OK", fast: false },
    { line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;web;http;0", fast: false },
    { line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;web;;0;OK", fast: false },
    { line: "[1700000000] PROCESS_SERVICE_CHECK_RESULT;;http;0;OK", fast: false },
    { line: "[1700000000] PROCESS_HOST_CHECK_RESULT;web", fast: false },
    { line: "[17000x0000] PROCESS_HOST_CHECK_RESULT;web;0;UP", fast: false },
    { line: "[] PROCESS_HOST_CHECK_RESULT;web;0;UP", fast: false },
    { line: "[1700000000] PROCESS_SERVICE_CHECK_RESULTS;web;http;0;OK", fast: false },
    { line: "[1700000000] ACKNOWLEDGE_SVC_PROBLEM;web;http;2;1;1;ops;seen", fast: false },
    { line: "PROCESS_HOST_CHECK_RESULT;web;0;UP", fast: false },
  ];
  for (const c of cases) {
    test(c.line, () => {
      const fast = parseResultLine(c.line);
      assert.equal(fast !== undefined, c.fast);
      if (fast === undefined) return;
      const slow = parseCommandLine(c.line, noId, noId);
      assert.ok(slow.ok, JSON.stringify(slow));
      assert.equal(fast.name, slow.name);
      assert.deepEqual(fast.command, slow.command);
      assert.equal(fast.sent, (slow.shown as { ExitStatus: number }).ExitStatus);
    });
  }
});

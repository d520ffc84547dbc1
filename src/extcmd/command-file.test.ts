import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { tokenSha256 } from "../auth/index.js";
import { runLookout, type ServerProcess, startServer } from "../testing/server-process.js";
import { type Audit, serverCalls } from "./server-calls.case.js";

// The external command file against real senders: a shell writing into the pipe, and Debian's
// nsca-ng server relaying send_nsca results into it (both on loopback).

const run = promisify(execFile);
const ADMIN = "extcmd-admin-token";
const PASSIVE = `check: {type: "passive", freshness_threshold: "1h"}`;
const CONFIG = `hosts: {
	web: {
		address: "127.0.0.1"
		${PASSIVE}
		services: {
			http: ${PASSIVE}
			disk: ${PASSIVE}
			ack1: ${PASSIVE}
			ack2: ${PASSIVE}
			long: ${PASSIVE}
			flex: ${PASSIVE}
			pending: ${PASSIVE}
		}
	}
	gw: {address: "127.0.0.1", ${PASSIVE}}
	ack1: {address: "127.0.0.1", parents: ["gw"], ${PASSIVE}}
	ack2: {address: "127.0.0.1", parents: ["gw"], ${PASSIVE}}
	probe: {
		address: "127.0.0.1"
		${PASSIVE}
		// An active check (of a closed loopback port) that runs once a day unless rescheduled.
		services: tcp: check: {type: "tcp", address: "127.0.0.1:9", check_interval: "24h"}
	}
}
`;

let dir: string;
let fifo: string;
let srv: ServerProcess;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-extcmd-"));
  fifo = join(dir, "lookout.cmd");
  await writeFile(join(dir, "c.cue"), CONFIG);
  await writeFile(
    join(dir, "auth.cue"),
    `identities: admin: {role: "admin", token_sha256: "${tokenSha256(ADMIN)}"}\n`,
  );
  srv = await startServer([
    "-config",
    join(dir, "c.cue"),
    "-auth-config",
    join(dir, "auth.cue"),
    "-session-secret",
    "command-file-test-session-secret-0123456789",
    "-command-file",
    fifo,
    "-data-dir",
    join(dir, "data"),
  ]);
});
after(async () => {
  assert.equal(await srv.stop(), 0);
  await rm(dir, { recursive: true, force: true });
});

const { call, statuses, until } = serverCalls(() => srv, ADMIN);
const statusOf = async (host: string, service: string | undefined) =>
  (await statuses(host)).find((s) => s.service === service);
const status = (service: string | undefined) => statusOf("web", service);
const audits = async () =>
  (await call<{ records?: Audit[] }>("/svc.v1.AdminService/ListAuditRecords", { limit: 1000 })).records ?? [];

/** How many check results the batches' audit records among `records` count. */
const counted = (records: readonly Audit[]): number =>
  records
    .filter((r) => r.outcome === "AUDIT_OUTCOME_ACCEPTED" && r.rpc === "PROCESS_SERVICE_CHECK_RESULT")
    .reduce((n, r) => n + ((JSON.parse(r.commandJson) as { Count?: number }).Count ?? 0), 0);

/** What a shell script does: one `printf >> pipe` per line, each opening and closing the pipe. */
async function shell(lines: string[]): Promise<void> {
  const script = lines.map((l) => `printf '%s\\n' "${l.replaceAll('"', '\\"')}" > "$1"`).join("\n");
  await run("sh", ["-c", script, "sh", fifo]);
}

describe("external command file", () => {
  test("is a named pipe", async () => {
    const { stdout } = await run("stat", ["-c", "%F %a", fifo]);
    assert.match(stdout, /^fifo 660/);
  });

  test("a shell's lines go through the pipeline, bad ones are audited as rejected and skipped", async () => {
    const now = Math.floor(Date.now() / 1000);
    await shell([
      `[${now}] PROCESS_SERVICE_CHECK_RESULT;web;http;2;CRITICAL - from the shell; with a semicolon`,
      "this is not a command",
      `[${now}] PROCESS_SERVICE_CHECK_RESULT;nope;http;0;OK`,
      `[${now}] RESTART_PROGRAM`,
      `[${now}] PROCESS_HOST_CHECK_RESULT;web;0;UP from the shell`,
    ]);
    const http = await until(
      "web!http",
      () => status("http"),
      (s) => s?.state === "STATE_CRITICAL",
    );
    assert.equal(http?.output, "CRITICAL - from the shell; with a semicolon");
    await until(
      "web",
      () => status(undefined),
      (s) => s?.output === "UP from the shell",
    );

    // The reader went on after each bad line; now an acknowledgement, written after the pipe was
    // closed and reopened by every printf above.
    await shell([`[${now}] ACKNOWLEDGE_SVC_PROBLEM;web;http;2;1;1;ops;seen from the shell`]);
    await until(
      "ack",
      () => status("http"),
      (s) => s?.acknowledgement?.author === "ops",
    );

    // The check results are audited in batches, one record each (with their count and objects):
    // how the reads grouped the lines decides how many. Refusals have a record each, in order.
    const ext = (
      await until("audit", audits, (r) =>
        r.some((x) => x.source === "AUDIT_SOURCE_EXTCMD" && x.rpc === "ACKNOWLEDGE_SVC_PROBLEM"),
      )
    )
      .filter((r) => r.source === "AUDIT_SOURCE_EXTCMD")
      .reverse();
    const rejected = ext.filter((r) => r.outcome === "AUDIT_OUTCOME_REJECTED");
    assert.deepEqual(
      rejected.map((r) => r.rpc ?? ""),
      ["", "PROCESS_SERVICE_CHECK_RESULT", "RESTART_PROGRAM"],
    );
    assert.match(rejected[1]?.reason ?? "", /"nope" is not configured/);
    assert.match(rejected[2]?.reason ?? "", /unknown command/);
    const results = ext.filter(
      (r) => r.outcome === "AUDIT_OUTCOME_ACCEPTED" && r.rpc !== "ACKNOWLEDGE_SVC_PROBLEM",
    );
    assert.deepEqual(
      results.flatMap((r) => (JSON.parse(r.commandJson) as { Objects: unknown[] }).Objects),
      [{ Host: "web", Service: "http" }, { Host: "web" }],
    );
    assert.equal(ext.at(-1)?.rpc, "ACKNOWLEDGE_SVC_PROBLEM", "the acknowledgement's record is the last");
    assert.equal(ext[0]?.principal, undefined, "nothing authenticates a pipe writer");
    assert.deepEqual(JSON.parse(ext.at(-1)?.commandJson ?? "{}"), {
      Type: "AcknowledgeProblem",
      Target: { Object: { Host: "web", Service: "http" } },
      Sticky: true,
      Notify: true,
      Author: "ops",
      Comment: "seen from the shell",
    });
    assert.match(
      srv.stderr(),
      /"msg":"external command refused".*"reason":"unknown command RESTART_PROGRAM"/,
    );
  });

  test("an acknowledgement's sticky argument is Nagios': 2 sticky, 1 normal", async () => {
    const now = Math.floor(Date.now() / 1000);
    // A service goes from CRITICAL to WARNING; a host from DOWN to UNREACHABLE (its parent gw
    // goes down): a change between problem states, which ends a normal acknowledgement only.
    await shell([
      `[${now}] PROCESS_SERVICE_CHECK_RESULT;web;ack1;2;CRITICAL`,
      `[${now}] PROCESS_SERVICE_CHECK_RESULT;web;ack2;2;CRITICAL`,
      `[${now}] PROCESS_HOST_CHECK_RESULT;gw;0;UP`,
      `[${now}] PROCESS_HOST_CHECK_RESULT;ack1;2;DOWN`,
      `[${now}] PROCESS_HOST_CHECK_RESULT;ack2;2;DOWN`,
      `[${now}] ACKNOWLEDGE_SVC_PROBLEM;web;ack1;1;1;1;ops;normal`,
      `[${now}] ACKNOWLEDGE_SVC_PROBLEM;web;ack2;2;1;1;ops;sticky`,
      `[${now}] ACKNOWLEDGE_HOST_PROBLEM;ack1;1;1;1;ops;normal`,
      `[${now}] ACKNOWLEDGE_HOST_PROBLEM;ack2;2;1;1;ops;sticky`,
    ]);
    const cases = [
      { host: "web", service: "ack1", problem: "STATE_WARNING", keeps: false },
      { host: "web", service: "ack2", problem: "STATE_WARNING", keeps: true },
      { host: "ack1", service: undefined, problem: "STATE_UNREACHABLE", keeps: false },
      { host: "ack2", service: undefined, problem: "STATE_UNREACHABLE", keeps: true },
    ];
    for (const c of cases) {
      await until(
        `${c.host}!${c.service} acknowledged`,
        () => statusOf(c.host, c.service),
        (s) => s?.acknowledgement?.author === "ops",
      );
    }
    await shell([
      `[${now}] PROCESS_SERVICE_CHECK_RESULT;web;ack1;1;WARNING`,
      `[${now}] PROCESS_SERVICE_CHECK_RESULT;web;ack2;1;WARNING`,
      `[${now}] PROCESS_HOST_CHECK_RESULT;gw;2;DOWN`,
      `[${now}] PROCESS_HOST_CHECK_RESULT;ack1;2;DOWN`,
      `[${now}] PROCESS_HOST_CHECK_RESULT;ack2;2;DOWN`,
    ]);
    for (const c of cases) {
      const s = await until(
        `${c.host}!${c.service} ${c.problem}`,
        () => statusOf(c.host, c.service),
        (s) => s?.state === c.problem,
      );
      assert.equal(s?.acknowledgement !== undefined, c.keeps, `${c.host}!${c.service}: ${JSON.stringify(s)}`);
    }
  });

  test("comments and flexible downtimes from the pipe, listed and deleted by their ids", async () => {
    const now = Math.floor(Date.now() / 1000);
    interface Comment {
      id: string;
      service?: string;
      text: string;
      kind: string;
    }
    interface Downtime {
      id: string;
      comment: string;
      flexible?: boolean;
      duration?: string;
      state: string;
    }
    // Operators' comments: the acknowledgements above have theirs listed too.
    const comments = async () =>
      (
        (await call<{ comments?: Comment[] }>("/svc.v1.QueryService/ListComments", { host: "web" }))
          .comments ?? []
      ).filter((c) => c.kind === "COMMENT_KIND_USER");
    const downtimes = async () =>
      (await call<{ downtimes?: Downtime[] }>("/svc.v1.QueryService/ListDowntimes", { host: "web" }))
        .downtimes ?? [];
    await shell([
      `[${now}] ADD_SVC_COMMENT;web;disk;1;ops;cable swapped; rack 4`,
      `[${now}] ADD_HOST_COMMENT;web;0;ops;moved to row B`,
      `[${now}] SCHEDULE_SVC_DOWNTIME;web;flex;${now};${now + 3600};0;0;600;ops;flex window`,
    ]);
    const added = await until("two comments", comments, (c) => c.length === 2);
    assert.deepEqual(added.map((c) => [c.service, c.text]).sort(), [
      [undefined, "moved to row B"],
      ["disk", "cable swapped; rack 4"],
    ]);
    const [flex] = await until("the flexible downtime", downtimes, (d) =>
      d.some((x) => x.comment === "flex window"),
    );
    assert.equal(flex?.flexible, true);
    assert.equal(flex?.duration, "600s");
    assert.equal(flex?.state, "DOWNTIME_STATE_FUTURE", "it waits for a problem");
    await shell([`[${now}] PROCESS_SERVICE_CHECK_RESULT;web;flex;2;CRITICAL`]);
    await until("the problem starts it", downtimes, (d) => d[0]?.state === "DOWNTIME_STATE_ACTIVE");

    const disk = added.find((c) => c.service === "disk") as Comment;
    await shell([`[${now}] DEL_SVC_COMMENT;${disk.id}`, `[${now}] DEL_SVC_DOWNTIME;${flex?.id}`]);
    await until("one comment left", comments, (c) => c.length === 1 && c[0]?.text === "moved to row B");
    await until("no downtime left", downtimes, (d) => d.length === 0);
    // Every line's audit record, the comment's id in its own (and all there before the next test counts).
    await until(
      "the lines' audit records",
      async () =>
        (await audits()).filter((r) => r.source === "AUDIT_SOURCE_EXTCMD").map((r) => r.commandJson),
      (ext) =>
        ext.some((j) => j.includes('"AddComment"') && j.includes(disk.id)) &&
        ext.some((j) => j.includes('"DeleteComment"') && j.includes(disk.id)) &&
        ext.some((j) => j.includes('"DeleteDowntime"') && j.includes(flex?.id ?? "?")),
    );
  });

  test("what the state already refuses is audited as rejected at once, not accepted", async () => {
    const now = Math.floor(Date.now() / 1000);
    const before = (await audits()).filter((r) => r.source === "AUDIT_SOURCE_EXTCMD").length;
    // Everything written before is applied (the test above waited for it): the projection knows.
    await shell([
      `[${now}] ACKNOWLEDGE_SVC_PROBLEM;web;pending;2;1;1;ops;nothing to see`,
      `[${now}] REMOVE_SVC_ACKNOWLEDGEMENT;web;pending`,
      `[${now}] REMOVE_HOST_ACKNOWLEDGEMENT;gw`,
      `[${now}] DEL_SVC_DOWNTIME;dt-nope`,
    ]);
    const ext = await until(
      "audit",
      async () =>
        (await audits())
          .filter((r) => r.source === "AUDIT_SOURCE_EXTCMD")
          .reverse()
          .slice(before),
      (r) => r.length >= 4,
    );
    assert.deepEqual(
      ext.map((r) => [r.rpc, r.outcome, r.reason]),
      [
        [
          "ACKNOWLEDGE_SVC_PROBLEM",
          "AUDIT_OUTCOME_REJECTED",
          "web!pending is PENDING: there is no problem to acknowledge",
        ],
        ["REMOVE_SVC_ACKNOWLEDGEMENT", "AUDIT_OUTCOME_REJECTED", "web!pending is not acknowledged"],
        ["REMOVE_HOST_ACKNOWLEDGEMENT", "AUDIT_OUTCOME_REJECTED", "gw is not acknowledged"],
        ["DEL_SVC_DOWNTIME", "AUDIT_OUTCOME_REJECTED", 'downtime "dt-nope" does not exist'],
      ],
    );
  });

  test("SCHEDULE_[FORCED_]SVC_CHECK / HOST_CHECK reschedule an active check; a passive one is refused", async () => {
    const first = await until(
      "the first run of probe!tcp",
      () => statusOf("probe", "tcp"),
      (s) => s?.lastCheck !== undefined,
    );
    const now = Math.floor(Date.now() / 1000);
    await shell([
      `[${now}] SCHEDULE_FORCED_SVC_CHECK;probe;tcp;${now}`,
      `[${now}] SCHEDULE_SVC_CHECK;web;http;${now}`,
      `[${now}] SCHEDULE_HOST_CHECK;nope;${now}`,
    ]);
    await until(
      "probe!tcp checked again",
      () => statusOf("probe", "tcp"),
      (s) => Date.parse(s?.lastCheck ?? "") > Date.parse(first?.lastCheck ?? ""),
    );
    const mine = (
      await until(
        "the three lines audited",
        audits,
        (a) => a.filter((r) => /^SCHEDULE_(FORCED_)?(SVC|HOST)_CHECK$/.test(r.rpc ?? "")).length >= 3,
      )
    ).filter((r) => /^SCHEDULE_(FORCED_)?(SVC|HOST)_CHECK$/.test(r.rpc ?? ""));
    assert.deepEqual(mine.map((r) => [r.rpc, r.outcome, r.reason ?? ""]).sort(), [
      ["SCHEDULE_FORCED_SVC_CHECK", "AUDIT_OUTCOME_ACCEPTED", ""],
      ["SCHEDULE_HOST_CHECK", "AUDIT_OUTCOME_REJECTED", 'host "nope" is not configured'],
      [
        "SCHEDULE_SVC_CHECK",
        "AUDIT_OUTCOME_REJECTED",
        "web!http has a passive check: there is no check to run",
      ],
    ]);
    const history = await call<{ entries: { kind: string; author?: string; comment?: string }[] }>(
      "/svc.v1.QueryService/ListHistory",
      { host: "probe", service: "tcp" },
    );
    const e = history.entries.find((x) => x.kind === "CheckRescheduled");
    assert.equal(e?.author, "command-file", JSON.stringify(history));
    assert.match(e?.comment ?? "", /^forced check at /);
  });

  test("an over-long line is one refusal; audit fields are capped and say so", async () => {
    const now = Math.floor(Date.now() / 1000);
    const before = (await audits()).filter((r) => r.source === "AUDIT_SOURCE_EXTCMD").length;
    const ok = (n: number) => `[${now}] PROCESS_SERVICE_CHECK_RESULT;web;long;0;OK ${n}\n`;
    // Written as one writer does (the pipe is bigger than the reader's chunks): a 1 MiB line, a
    // line just over the 64 KiB limit, a long line that is no command, a long comment.
    const data = [
      `[${now}] PROCESS_SERVICE_CHECK_RESULT;web;long;0;${"x".repeat(1024 * 1024)}\n`,
      ok(1),
      `${"A".repeat(70_060)}\n`,
      ok(2),
      `${"B".repeat(3000)}\n`,
      `[${now}] ACKNOWLEDGE_SVC_PROBLEM;web;long;${"9".repeat(5000)}x;1;1;ops;c\n`,
      `[${now}] PROCESS_SERVICE_CHECK_RESULT;web;long;2;CRITICAL\n`,
      `[${now}] ACKNOWLEDGE_SVC_PROBLEM;web;long;2;1;1;ops;${"c".repeat(5000)}\n`,
      `[${now}] PROCESS_SERVICE_CHECK_RESULT;web;long;1;WARNING 3\n`,
    ].join("");
    await writeFile(fifo, data, { flag: "a" });
    await until(
      "web!long",
      () => status("long"),
      (s) => s?.output === "WARNING 3",
    );
    const ext = await until(
      "audit",
      async () =>
        (await audits())
          .filter((r) => r.source === "AUDIT_SOURCE_EXTCMD")
          .reverse()
          .slice(before),
      (r) =>
        r.filter((x) => x.outcome === "AUDIT_OUTCOME_REJECTED").length >= 4 &&
        r.some((x) => x.rpc === "ACKNOWLEDGE_SVC_PROBLEM" && x.outcome === "AUDIT_OUTCOME_ACCEPTED") &&
        counted(r) >= 4,
    );
    const longLine = /^a line longer than 65536 bytes$/;
    // Refused lines have a record each, in order; the check results one per batch (how the reads
    // of the long lines grouped them decides how many batches), the acknowledgement its own.
    assert.deepEqual(
      ext
        .filter((r) => r.outcome === "AUDIT_OUTCOME_REJECTED")
        .map((r) => [r.rpc ?? "", longLine.test(r.reason ?? "")]),
      [
        ["PROCESS_SERVICE_CHECK_RESULT", true],
        ["", true],
        [`${"B".repeat(64)}…`, false],
        ["ACKNOWLEDGE_SVC_PROBLEM", false],
      ],
    );
    assert.equal(counted(ext), 4);
    const accepted = ext.filter((r) => r.outcome === "AUDIT_OUTCOME_ACCEPTED");
    assert.deepEqual(
      accepted.map((r) => r.rpc).filter((x) => x !== "PROCESS_SERVICE_CHECK_RESULT"),
      ["ACKNOWLEDGE_SVC_PROBLEM"],
    );
    // The acknowledgement ended the batch before it: the last result has a record after it.
    assert.equal(accepted.at(-1)?.rpc, "PROCESS_SERVICE_CHECK_RESULT");
    for (const r of ext) {
      for (const v of [r.rpc ?? "", r.reason ?? "", r.commandJson]) {
        assert.ok(Buffer.byteLength(v) <= 1024, `${Buffer.byteLength(v)} bytes: ${v.slice(0, 80)}`);
      }
    }
    const ack = JSON.parse(
      accepted.find((r) => r.rpc === "ACKNOWLEDGE_SVC_PROBLEM")?.commandJson ?? "{}",
    ) as {
      Author: string;
      Comment: string;
    };
    assert.equal(ack.Author, "ops");
    assert.match(ack.Comment, /^c+…\[cut, 5000 bytes\]$/);
    assert.equal((await status("long"))?.acknowledgement?.comment.length, 5000, "only the record is cut");
    // The log says as much as the record, no more.
    assert.match(
      ext.filter((r) => r.outcome === "AUDIT_OUTCOME_REJECTED")[3]?.reason ?? "",
      /^sticky must be an integer, got "9+…\[cut, \d+ bytes\]$/,
    );
    const refusals = srv
      .stderr()
      .split("\n")
      .filter((l) => l.includes("external command refused"));
    assert.ok(refusals.length > 0);
    for (const l of refusals) assert.ok(l.length < 2048, `a log line of ${l.length} characters`);
  });

  test("a check result for an object whose passive checks are switched off is refused and audited", async () => {
    const now = Math.floor(Date.now() / 1000);
    const before = (await audits()).filter((r) => r.source === "AUDIT_SOURCE_EXTCMD").length;
    await shell([`[${now}] DISABLE_PASSIVE_SVC_CHECKS;web;disk`]);
    await until(
      "web!disk passive checks off",
      () => status("disk"),
      (s) => (s as { passiveChecksDisabled?: boolean } | undefined)?.passiveChecksDisabled === true,
    );
    await shell([
      `[${now}] PROCESS_SERVICE_CHECK_RESULT;web;disk;2;CRITICAL - refused`,
      `[${now}] ENABLE_PASSIVE_SVC_CHECKS;web;disk`,
    ]);
    await until(
      "web!disk passive checks on",
      () => status("disk"),
      (s) => (s as { passiveChecksDisabled?: boolean } | undefined)?.passiveChecksDisabled === undefined,
    );
    await shell([`[${now}] PROCESS_SERVICE_CHECK_RESULT;web;disk;0;OK - taken`]);
    await until(
      "web!disk",
      () => status("disk"),
      (s) => s?.output === "OK - taken",
    );
    const ext = await until(
      "audit",
      async () =>
        (await audits())
          .filter((r) => r.source === "AUDIT_SOURCE_EXTCMD")
          .reverse()
          .slice(before),
      (r) => r.length >= 4,
    );
    assert.deepEqual(
      ext.map((r) => [r.rpc ?? "", r.outcome]),
      [
        ["DISABLE_PASSIVE_SVC_CHECKS", "AUDIT_OUTCOME_ACCEPTED"],
        ["PROCESS_SERVICE_CHECK_RESULT", "AUDIT_OUTCOME_REJECTED"],
        ["ENABLE_PASSIVE_SVC_CHECKS", "AUDIT_OUTCOME_ACCEPTED"],
        ["PROCESS_SERVICE_CHECK_RESULT", "AUDIT_OUTCOME_ACCEPTED"],
      ],
    );
    assert.match(ext[1]?.reason ?? "", /passive checks of web!disk are disabled/);
    assert.deepEqual(JSON.parse(ext[0]?.commandJson ?? "{}"), {
      Type: "SetObjectFlags",
      Target: { Object: { Host: "web", Service: "disk" } },
      PassiveChecks: false,
      Author: "command-file",
    });
  });

  test("send_nsca results relayed by a real nsca-ng server", async (t) => {
    if (!existsSync("/usr/sbin/nsca-ng") || !existsSync("/usr/sbin/send_nsca")) {
      t.skip("nsca-ng-server / nsca-ng-client not installed (.ci/run installs them)");
      return;
    }
    const port = await freePort();
    const cfg = join(dir, "nsca-ng.cfg");
    await writeFile(
      cfg,
      [
        `command_file = "${fifo}"`,
        `listen = "127.0.0.1:${port}"`,
        `pid_file = "${join(dir, "nsca-ng.pid")}"`,
        'authorize "*" {',
        '  password = "loopback-only"',
        '  hosts = ".*"',
        '  services = ".*"',
        "}",
        "",
      ].join("\n"),
    );
    const clientCfg = join(dir, "send_nsca.cfg");
    await writeFile(clientCfg, `password = "loopback-only"\n`);
    const nsca = spawn("/usr/sbin/nsca-ng", ["-F", "-c", cfg, "-l", "3"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    nsca.stdout.on("data", (c: Buffer) => {
      log += c.toString();
    });
    nsca.stderr.on("data", (c: Buffer) => {
      log += c.toString();
    });
    try {
      await waitForPort(port, () => log);
      await sendNsca(clientCfg, port, "web\tdisk\t1\tWARNING - 91% used|used=91%;80;90\n");
      await sendNsca(clientCfg, port, "web\t0\tUP via nsca-ng\n");
      const disk = await until(
        "web!disk",
        () => status("disk"),
        (s) => s?.state === "STATE_WARNING",
      );
      assert.equal(disk?.output, "WARNING - 91% used");
      await until(
        "web",
        () => status(undefined),
        (s) => s?.output === "UP via nsca-ng",
      );
      const ext = (await audits()).filter((r) => r.source === "AUDIT_SOURCE_EXTCMD");
      assert.ok(
        ext.some(
          (r) =>
            (r.rpc ?? "").includes("PROCESS_SERVICE_CHECK_RESULT") &&
            r.commandJson.includes('"Service":"disk"'),
        ),
      );
    } finally {
      nsca.kill("SIGTERM");
      await new Promise((r) => nsca.once("exit", r));
    }
  });

  test("an existing regular file at the path is a start-up error", async () => {
    const file = join(dir, "not-a-fifo");
    await writeFile(file, "");
    const r = await runLookout([
      "-listen",
      "127.0.0.1:0",
      "-command-file",
      file,
      "-data-dir",
      join(dir, "d2"),
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /exists and is not a named pipe/);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => (typeof a === "object" && a !== null ? resolve(a.port) : reject(new Error("no port"))));
    });
  });
}

async function waitForPort(port: number, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once("error", () => resolve(true));
      s.listen(port, "127.0.0.1", () => s.close(() => resolve(false)));
    });
    if (ok) return;
    if (Date.now() > deadline) assert.fail(`nsca-ng did not listen on ${port}:\n${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function sendNsca(cfg: string, port: number, input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn("/usr/sbin/send_nsca", ["-c", cfg, "-H", "127.0.0.1", "-p", String(port)], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let err = "";
    p.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    p.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`send_nsca exited ${code}: ${err}`)),
    );
    p.stdin.end(input);
  });
}

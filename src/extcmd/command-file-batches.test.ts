import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { tokenSha256 } from "../auth/index.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";
import { MAX_BATCH, MAX_IN_FLIGHT } from "./line-submitter.js";
import { REFUSALS_LOGGED } from "./refusal-log.js";
import { serverCalls } from "./server-calls.case.js";

// Check results through the external command file in batches, against the real binary and a real
// FIFO: order with the other commands, lines split across reads, bad lines among good ones, the
// pipe left unread while the writer is behind, and a restart.

const run = promisify(execFile);
const PASSIVE = `check: {type: "passive", freshness_threshold: "1h"}`;
const FILLERS = 50;
const CONFIG = `hosts: {
	web: {
		address: "127.0.0.1"
		${PASSIVE}
		services: {
			ordered: ${PASSIVE}
			split: ${PASSIVE}
			utf8: ${PASSIVE}
			good: ${PASSIVE}
			${Array.from({ length: FILLERS }, (_, i) => `f${i}: ${PASSIVE}`).join("\n\t\t\t")}
		}
	}
	edge: {address: "127.0.0.1", ${PASSIVE}}
}
`;

let dir: string;
let fifo: string;
let srv: ServerProcess;
const ADMIN = "extcmd-batches-admin-token";
const serverArgs = () => [
  "-config",
  join(dir, "c.cue"),
  // The audit log is read through AdminService, which needs identities.
  "-auth-config",
  join(dir, "auth.cue"),
  "-session-secret",
  "command-file-batches-test-session-secret-0123",
  "-command-file",
  fifo,
  "-data-dir",
  join(dir, "data"),
];
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-extcmd-batches-"));
  fifo = join(dir, "lookout.cmd");
  await writeFile(join(dir, "c.cue"), CONFIG);
  await writeFile(
    join(dir, "auth.cue"),
    `identities: admin: {role: "admin", token_sha256: "${tokenSha256(ADMIN)}"}\n`,
  );
  srv = await startServer(serverArgs());
});
after(async () => {
  assert.equal(await srv.stop(), 0, srv.stderr().slice(-4000));
  await rm(dir, { recursive: true, force: true });
});

const { statuses, extcmdAudits, until: untilWithin } = serverCalls(() => srv, ADMIN);
const status = async (service: string | undefined) =>
  (await statuses(service === undefined ? "edge" : "web")).find((s) => s.service === service);
const audits = () => extcmdAudits(100_000);
/** lookout_command_file_lines_total by result. */
async function lines(): Promise<Record<string, number>> {
  const text = await (await fetch(`${srv.url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^lookout_command_file_lines_total\{result="(\w+)"\} (\d+)$/gm))
    out[m[1] as string] = Number(m[2]);
  return out;
}
const total = (l: Record<string, number>) => Object.values(l).reduce((a, b) => a + b, 0);

/** Polls until `ok` holds (a minute unless told). */
const until = <T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> =>
  untilWithin(what, get, ok, ms);

/** Writes into the pipe as one writer does: open, write everything, close. */
async function write(data: string): Promise<void> {
  const fh = await open(fifo, "a");
  try {
    await fh.write(data);
  } finally {
    await fh.close();
  }
}

const now = () => Math.floor(Date.now() / 1000);
const result = (service: string, code: number, output: string, t = now()) =>
  `[${t}] PROCESS_SERVICE_CHECK_RESULT;web;${service};${code};${output}\n`;
/** `n` OK results for the filler services, in turn, each output naming its round. */
const fillers = (n: number, round: string) =>
  Array.from({ length: n }, (_, i) =>
    result(`f${i % FILLERS}`, 0, `${round} ${Math.floor(i / FILLERS)}`),
  ).join("");

describe("external command file: check results in batches", () => {
  test("an acknowledgement applies after the results before it and before those after it, across batches", async () => {
    // Several batches' worth of results around each command, in one write. The acknowledgement
    // finds the problem the result before it made (the engine refuses it otherwise: nothing to
    // acknowledge); being sticky it outlasts the WARNING after it; the comment follows; the last
    // result of each filler service is the last written for it.
    const before = await audits();
    const many = 2 * MAX_BATCH + 123;
    await write(
      fillers(many, "first") +
        result("ordered", 2, "CRITICAL first") +
        `[${now()}] ACKNOWLEDGE_SVC_PROBLEM;web;ordered;2;0;1;ops;seen\n` +
        fillers(many, "second") +
        result("ordered", 1, "WARNING still a problem") +
        `[${now()}] ADD_SVC_COMMENT;web;ordered;1;ops;after the warning\n` +
        fillers(many, "third"),
    );
    const rounds = (i: number) => Math.floor((many - 1 - i) / FILLERS);
    const all = await until(
      "every filler's last result",
      () => statuses("web"),
      (a) =>
        Array.from({ length: FILLERS }, (_, i) => i).every(
          (i) => a.find((s) => s.service === `f${i}`)?.output === `third ${rounds(i)}`,
        ),
    );
    const ordered = all.find((s) => s.service === "ordered");
    assert.equal(ordered?.output, "WARNING still a problem");
    assert.equal(ordered?.acknowledgement?.author, "ops", JSON.stringify(ordered));
    assert.equal(ordered?.acknowledgement?.comment, "seen");
    const ext = (
      await until(
        "audit",
        audits,
        (r) => r.some((x) => x.rpc === "ADD_SVC_COMMENT") && r.length >= before.length + 5,
      )
    ).slice(before.length);
    // Every line accepted: the results in batches of at most MAX_BATCH, the two commands alone.
    const accepted = ext.filter((r) => r.outcome === "AUDIT_OUTCOME_ACCEPTED");
    assert.equal(
      ext.length,
      accepted.length,
      JSON.stringify(ext.filter((r) => r.outcome !== "AUDIT_OUTCOME_ACCEPTED")),
    );
    const commands = accepted.map((r) => r.rpc);
    assert.deepEqual(
      commands.filter((c) => c !== "PROCESS_SERVICE_CHECK_RESULT"),
      ["ACKNOWLEDGE_SVC_PROBLEM", "ADD_SVC_COMMENT"],
    );
    const counts = accepted
      .filter((r) => r.rpc === "PROCESS_SERVICE_CHECK_RESULT")
      .map((r) => (JSON.parse(r.commandJson) as { Count: number }).Count);
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      3 * many + 2,
    );
    assert.ok(
      counts.every((c) => c <= MAX_BATCH),
      String(counts),
    );
    assert.ok(counts.length < (3 * many) / 100, `${counts.length} records for ${3 * many} results`);
  });

  test("a line split across reads, also inside a character, is read whole", async () => {
    const line = result("utf8", 1, "WARNING naïve ✓ done");
    const bytes = Buffer.from(line + result("split", 2, "CRITICAL after the split"));
    // Inside the three bytes of ✓, and again after the first line's newline is written.
    const cut = Buffer.from(line).indexOf(Buffer.from("✓")) + 1;
    const fh = await open(fifo, "a");
    try {
      await fh.write(bytes.subarray(0, cut));
      // The reader reads the first piece on its own before the rest arrives.
      await new Promise((r) => setTimeout(r, 500));
      await fh.write(bytes.subarray(cut, cut + 5));
      await new Promise((r) => setTimeout(r, 300));
      await fh.write(bytes.subarray(cut + 5));
    } finally {
      await fh.close();
    }
    const split = await until(
      "web!split",
      () => status("split"),
      (s) => s?.output === "CRITICAL after the split",
    );
    assert.equal(split?.state, "STATE_CRITICAL");
    const utf8 = await status("utf8");
    assert.equal(utf8?.output, "WARNING naïve ✓ done");
    assert.equal(utf8?.state, "STATE_WARNING");
  });

  test("bad lines among good ones are counted, audited and logged (rate-limited); the good ones apply", async () => {
    const before = await lines();
    const t = now();
    const bad = [
      "garbage\n",
      `[${t}] PROCESS_SERVICE_CHECK_RESULT;nope;good;0;no such host\n`,
      `[${t}] PROCESS_SERVICE_CHECK_RESULT;web;good;7;return code out of range\n`,
      `[${t}] PROCESS_SERVICE_CHECK_RESULT;web;good\n`,
    ];
    // Many more bad lines than are logged one by one.
    const flood = Array.from({ length: 2 * REFUSALS_LOGGED }, (_, i) =>
      result(`missing${i}`, 0, "not configured"),
    ).join("");
    await write(
      result("good", 1, "WARNING 1") +
        bad.join("") +
        `[${t}] PROCESS_HOST_CHECK_RESULT;edge;1;DOWN edge\n` +
        flood +
        result("good", 2, "CRITICAL 2"),
    );
    const counted = await until(
      "every line counted",
      lines,
      (l) => total(l) - total(before) >= 3 + bad.length + flood.split("\n").length - 1,
    );
    const delta = (k: string) => (counted[k] ?? 0) - (before[k] ?? 0);
    assert.equal(delta("accepted"), 3);
    assert.equal(delta("unparsable"), 3, "garbage, a return code of 7, too few arguments");
    assert.equal(delta("not_found"), 1 + 2 * REFUSALS_LOGGED);
    const good = await until(
      "web!good",
      () => status("good"),
      (s) => s?.output === "CRITICAL 2",
    );
    assert.equal(good?.state, "STATE_CRITICAL");
    assert.equal((await status(undefined))?.output, "DOWN edge");
    const ext = await audits();
    const refused = ext
      .filter((r) => r.outcome === "AUDIT_OUTCOME_REJECTED")
      .slice(-(3 + 1 + 2 * REFUSALS_LOGGED));
    assert.match(refused[0]?.reason ?? "", /^not a command line/);
    assert.match(refused[1]?.reason ?? "", /host "nope" is not configured/);
    assert.deepEqual(JSON.parse(refused[1]?.commandJson ?? "{}"), {
      Type: "ProcessCheckResult",
      Host: "nope",
      Service: "good",
      ExitStatus: 0,
      CheckedAt: new Date(t * 1000).toISOString(),
    });
    assert.match(refused[2]?.reason ?? "", /return_code must be 0, 1, 2 or 3/);
    assert.match(refused[3]?.reason ?? "", /takes 4 arguments, got 2/);
    // The log: the first REFUSALS_LOGGED of the window one by one, then how many more.
    const log = await until(
      "the count of refusals not logged",
      async () => srv.stderr(),
      (l) => l.includes("more external commands refused"),
      30_000,
    );
    const logged = log.split("\n").filter((l) => l.includes('"msg":"external command refused"'));
    assert.ok(logged.length <= REFUSALS_LOGGED, `${logged.length} refusals logged`);
    assert.match(log, /"msg":"more external commands refused, not logged one by one".*"refused":24\b/);
  });

  test("while the writer is behind the pipe is left unread: lines in memory stay bounded", async () => {
    // A writer far faster than the server's writer thread: the reader must stop reading (the
    // pipe fills, this writer blocks) rather than hold everything written. Lines written but not
    // yet counted are then at most those in flight, one batch and what the pipe and one read hold.
    const before = total(await lines());
    const n = 6 * MAX_IN_FLIGHT;
    const out = await open(fifo, "a");
    let written = 0;
    let most = 0;
    let counting = true;
    // Written before the count is asked for, counted after: an underestimate of what is held,
    // never a false alarm however stale either is.
    const poll = (async () => {
      while (counting) {
        const w = written;
        most = Math.max(most, w - (total(await lines()) - before));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      const chunk = 500;
      for (let k = 0; k < n; k += chunk) {
        await out.write(fillers(chunk, `flood ${k}`));
        written += chunk;
      }
    } finally {
      await out.close();
    }
    await until("every flood line counted", lines, (l) => total(l) - before >= n, 300_000);
    counting = false;
    await poll;
    // In flight, a batch, the kernel's pipe (64 KiB) and a read of 64 KiB (lines of ~45 bytes).
    const bound = MAX_IN_FLIGHT + MAX_BATCH + 2 * Math.ceil(65536 / 40) + 2 * 500;
    assert.ok(most <= bound, `${most} lines written and not yet counted (bound ${bound})`);
    const rss = Number(
      /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${srv.child.pid}/status`, "utf8"))?.[1],
    );
    assert.ok(rss < 1024 * 1024, `RSS ${rss} kB`);
  });

  test("a restart: the pipe is reused, what was applied stays, a writer waiting for the reader gets through", async () => {
    await write(result("good", 1, "WARNING before the restart"));
    await until(
      "web!good",
      () => status("good"),
      (s) => s?.output === "WARNING before the restart",
    );
    assert.equal(await srv.stop(), 0, srv.stderr().slice(-4000));
    // With no reader, a shell's write waits in open(2) until the server is back.
    const sh = spawn(
      "sh",
      ["-c", `printf '%s\\n' "$2" > "$1"`, "sh", fifo, result("split", 0, "OK after the restart").trim()],
      { stdio: "ignore" },
    );
    const done = new Promise<number | null>((resolve) => sh.once("exit", (code) => resolve(code)));
    try {
      srv = await startServer(serverArgs());
      assert.equal(await done, 0);
    } finally {
      // A shell still waiting for a reader (the server did not come back) must not outlive the test.
      if (sh.exitCode === null && sh.signalCode === null) sh.kill("SIGKILL");
    }
    await until(
      "web!split",
      () => status("split"),
      (s) => s?.output === "OK after the restart",
    );
    assert.equal((await status("good"))?.output, "WARNING before the restart");
    const { stdout } = await run("stat", ["-c", "%F", fifo]);
    assert.equal(stdout.trim(), "fifo");
  });
});

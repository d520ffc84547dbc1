import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  type Config,
  type ContactConfig,
  DEFAULT_SCHEDULE,
  EMPTY_CONFIG,
  type HostConfig,
} from "../../model/config.js";
import { contractNotification, type PeerMode, senderContract } from "../../testing/sender-contract.js";
import { createCommandSender } from "./command-sender.js";

const SECRET = "env-secret-7f3a";

/** A config with host web, service web/http, and the `notify` command template. */
function configWith(line: string, shell = false): Config {
  const host: HostConfig = {
    name: "web",
    address: "10.0.0.7",
    parents: [],
    vars: {},
    check: { type: "tcp", address: "127.0.0.1:80", ...DEFAULT_SCHEDULE },
    services: new Map(),
    notification: "",
    zone: "default",
    labels: {},
  };
  (host.services as Map<string, unknown>).set("http", {
    host: "web",
    name: "http",
    vars: {},
    check: { type: "tcp", address: "127.0.0.1:80", ...DEFAULT_SCHEDULE },
    notification: "",
    zone: "default",
    labels: {},
  });
  return {
    ...EMPTY_CONFIG,
    hosts: new Map([["web", host]]),
    commands: new Map([["notify", { name: "notify", line, shell }]]),
  };
}

senderContract("command", async () => {
  const dir = mkdtempSync(join(tmpdir(), "lookout-cmd-contract-"));
  const modeFile = join(dir, "mode");
  const log = join(dir, "received");
  writeFileSync(log, "");
  const script = join(dir, "notify.sh");
  // The script echoes the secret env var: Lookout's environment never reaches it (cleanEnv).
  writeFileSync(
    script,
    `#!/bin/sh
echo "secret=$LOOKOUT_CONTRACT_SECRET"
case "$(cat ${modeFile})" in
  ok) echo "$1" >> ${log}; exit 0;;
  retryable) exit 75;;
  permanent) exit 1;;
  hang) exec sleep 30;;
esac
`,
    { mode: 0o755 },
  );
  process.env.LOOKOUT_CONTRACT_SECRET = SECRET;
  return {
    sender: createCommandSender(),
    contact: {
      name: "ops",
      labels: {},
      type: "command",
      command: "notify",
      args: [],
      address: "ops@example.com",
    },
    config: configWith(`${script} $NOTIFICATIONTYPE$`),
    setMode: (m: PeerMode) => writeFileSync(modeFile, m),
    received: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => l !== "").length,
    secrets: [SECRET],
    logs: () => [],
    close: async () => {
      delete process.env.LOOKOUT_CONTRACT_SECRET;
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

test("command notifications expand the Nagios notification macros, one argv word each, even with shell metacharacters", async () => {
  const dir = mkdtempSync(join(tmpdir(), "lookout-cmd-"));
  try {
    const out = join(dir, "argv");
    const script = join(dir, "dump.sh");
    writeFileSync(script, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > ${out}\n`, {
      mode: 0o755,
    });
    const contact: ContactConfig = {
      name: "ops",
      labels: {},
      type: "command",
      command: "notify",
      args: ["extra arg"],
      address: "ops@example.com",
    };
    const cases: { shell: boolean; line: string }[] = [
      {
        shell: false,
        line: `${script} $NOTIFICATIONTYPE$ $HOSTNAME$ $SERVICEDESC$ $SERVICESTATE$ $SERVICEOUTPUT$ $CONTACTNAME$ $CONTACTEMAIL$ $NOTIFICATIONNUMBER$ $ARG1$ $LONGDATETIME$`,
      },
      {
        shell: true,
        line: `${script} $NOTIFICATIONTYPE$ $HOSTNAME$ $SERVICEDESC$ $SERVICESTATE$ "$SERVICEOUTPUT$" $CONTACTNAME$ $CONTACTEMAIL$ $NOTIFICATIONNUMBER$ "$ARG1$" "$LONGDATETIME$"`,
      },
    ];
    for (const c of cases) {
      const n = { ...contractNotification("1.1.ops"), output: "CRITICAL; touch /tmp/pwned $(id) `id`" };
      const sender = createCommandSender({ now: () => Date.UTC(2026, 10, 21, 1, 36, 37) });
      const o = await sender.send(n, contact, configWith(c.line, c.shell), AbortSignal.timeout(5000));
      assert.deepEqual(o, { ok: true });
      assert.deepEqual(readFileSync(out, "utf8").split("\n").slice(0, -1), [
        "PROBLEM",
        "web",
        "http",
        "CRITICAL",
        "CRITICAL; touch /tmp/pwned $(id) `id`",
        "ops",
        "ops@example.com",
        "1",
        "extra arg",
        "Sat Nov 21 01:36:37 UTC 2026",
      ]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a command's output is capped in the failure it reports", async () => {
  const o = await createCommandSender().send(
    contractNotification("x"),
    { name: "ops", labels: {}, type: "command", command: "notify", args: [], address: "" },
    configWith("/bin/sh -c 'head -c 100000 /dev/zero | tr \\\\0 x; exit 3'"),
    AbortSignal.timeout(5000),
  );
  assert.equal(o.ok, false);
  assert.ok(!o.ok && o.error.length < 300, !o.ok ? String(o.error.length) : "");
  assert.equal(!o.ok && o.retryable, false);
});

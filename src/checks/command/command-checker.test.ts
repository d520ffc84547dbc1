import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { CheckTarget } from "../../model/checker.js";
import type { CommandProbe, CommandTemplate, Config, ServiceConfig } from "../../model/config.js";
import { EMPTY_CONFIG } from "../../model/config.js";
import { checkTarget, describeCheckContract } from "../../testing/check-contract.js";
import { FakeClock } from "../../testing/fake-clock.js";
import { closedTcpPort, type Peer, startTcpListener } from "../../testing/peers/tcp.js";
import { createCommandChecker } from "./index.js";

const commands: CommandTemplate[] = [
  { name: "dummy", line: "$USER1$/check_dummy $ARG1$ '$ARG2$'", shell: false },
  { name: "dummy-sh", line: '$USER1$/check_dummy $ARG1$ "$ARG2$" 2>&1', shell: true },
  { name: "tcp", line: "$USER1$/check_tcp -H $HOSTADDRESS$ -p $_HOSTPORT$", shell: false },
  { name: "echo", line: "/usr/bin/printf 'OK - [%s]' $_HOSTNOTE$", shell: false },
  {
    name: "echo-sh",
    line: "printf 'OK - [%s]' $_HOSTNOTE$; printf ' [%s]' '$_SERVICENOTE$' \"$ARG1$\"",
    shell: true,
  },
  {
    name: "state",
    line: 'echo "OK - $HOSTNAME$/$SERVICEDESC$ was $SERVICESTATE$ at $TIMET$ ($LONGDATETIME$)"',
    shell: true,
  },
  { name: "sleep", line: "sleep 30", shell: true },
  { name: "sleep-argv", line: "/bin/sleep 30", shell: false },
  { name: "exit", line: "exit $ARG1$", shell: true },
  { name: "broken", line: "echo 'unterminated", shell: true },
  { name: "literal", line: "/usr/bin/printf 'OK %s' $$HOME$$ $NOT_A_MACRO$", shell: false },
];

const config: Config = {
  ...EMPTY_CONFIG,
  resources: { USER1: "/usr/lib/nagios/plugins" },
  commands: new Map(commands.map((c) => [c.name, c])),
};

function target(command: string, args: string[] = [], vars: Record<string, string> = {}, timeoutMs = 10_000) {
  const t = checkTarget<CommandProbe>({ type: "command", command, args }, { timeoutMs }, config);
  return { ...t, host: { ...t.host, vars } };
}

describeCheckContract("command", async () => ({
  checker: createCommandChecker(),
  ok: target("dummy", ["0", "fine"]),
  failing: target("dummy-sh", ["2", "broken thing"]),
  failingOutput: /^CRITICAL: broken thing$/,
  hanging: target("sleep"),
  malformed: [target("nope"), target("broken")],
  async teardown() {},
}));

let dir = "";
let open: Peer;
let closed = 0;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), "lookout-command-"));
  open = await startTcpListener();
  closed = await closedTcpPort();
});
after(async () => {
  await open.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("command checker", () => {
  const clock = new FakeClock(Date.UTC(2026, 10, 21, 1, 36, 37));
  const checker = createCommandChecker({
    clock,
    snapshot: (t) => (t.service === undefined ? undefined : { service: { state: "WARNING" } }),
  });
  const withService = (
    t: CheckTarget<CommandProbe>,
    vars: Record<string, string>,
  ): CheckTarget<CommandProbe> => {
    const service: ServiceConfig = {
      host: t.host.name,
      name: "svc one",
      vars,
      check: t.probe,
      notification: "",
      zone: "default",
      labels: {},
    };
    return { ...t, service };
  };

  const cases: {
    name: string;
    target: () => CheckTarget<CommandProbe>;
    status: number;
    output: RegExp | string;
    maxMs?: number;
  }[] = [
    {
      name: "$USERn$ and $ARGn$",
      target: () => target("dummy", ["1", "two words"]),
      status: 1,
      output: "WARNING: two words",
    },
    {
      name: "shell with 2>&1",
      target: () => target("dummy-sh", ["3", "x; y"]),
      status: 3,
      output: "UNKNOWN: x; y",
    },
    {
      name: "$HOSTADDRESS$ and $_HOSTPORT$, open port",
      target: () => target("tcp", [], { PORT: String(open.port) }),
      status: 0,
      output: /^TCP OK/,
    },
    {
      name: "closed port",
      target: () => target("tcp", [], { PORT: String(closed) }),
      status: 2,
      output: /Connection refused/,
    },
    {
      name: "state snapshot and time macros",
      target: () => withService(target("state"), {}),
      status: 0,
      output: "OK - contract-host/svc one was WARNING at 1795224997 (Sat Nov 21 01:36:37 UTC 2026)",
    },
    {
      name: "unknown command",
      target: () => target("nope"),
      status: 3,
      output: 'command check: no command named "nope"',
    },
    {
      name: "unterminated quote",
      target: () => target("broken"),
      status: 3,
      output: "command broken: command line has an unterminated single quote",
    },
    {
      name: "exit code out of bounds",
      target: () => target("exit", ["42"]),
      status: 3,
      output: /return code 42 is out of bounds/,
    },
    {
      name: "$$ and unknown macros",
      target: () => target("literal"),
      status: 0,
      output: "OK $HOME$OK $NOT_A_MACRO$",
    },
    {
      name: "timeout kills the shell and its children",
      target: () => target("sleep", [], {}, 300),
      status: 3,
      output: /timed out after 0\.3s/,
      maxMs: 2000,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const t0 = performance.now();
      const o = await checker.run(c.target(), AbortSignal.timeout(10_000));
      assert.equal(o.exitStatus, c.status, o.output);
      if (typeof c.output === "string") assert.equal(o.output, c.output);
      else assert.match(o.output, c.output);
      if (c.maxMs !== undefined) assert.ok(performance.now() - t0 < c.maxMs);
    });
  }

  it("no hostile var, service var or argument can inject a command, with or without a shell", async () => {
    const canary = join(dir, "pwned");
    const values = [
      `; touch ${canary}`,
      `$(touch ${canary})`,
      `\`touch ${canary}\``,
      `'; touch ${canary}; echo '`,
      `"; touch ${canary}; echo "`,
      `x\n; touch ${canary}`,
      "a  b",
      "$HOME",
    ];
    for (const v of values) {
      const plain = await checker.run(target("echo", [], { NOTE: v }), AbortSignal.timeout(5000));
      assert.equal([plain.output, plain.longOutput].filter((s) => s !== "").join("\n"), `OK - [${v}]`);
      const sh = await checker.run(
        withService(target("echo-sh", [v], { NOTE: v }), { NOTE: v }),
        AbortSignal.timeout(5000),
      );
      const whole = `OK - [${v}] [${v}] [${v}]`;
      assert.equal([sh.output, sh.longOutput].filter((s) => s !== "").join("\n"), whole, JSON.stringify(v));
    }
    assert.equal(existsSync(canary), false, "a macro value ran a command");
  });
});

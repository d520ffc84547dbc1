import assert from "node:assert/strict";
import { test } from "node:test";
import { runLookout } from "../testing/server-process.js";

test("lookout worker: flags it refuses, and its usage", async () => {
  const cases: { args: string[]; code: number; stderr: RegExp }[] = [
    { args: ["worker"], code: 2, stderr: /-nats is required\n-zone is required/ },
    {
      args: ["worker", "-nats", "nats://127.0.0.1:1", "-zone", "dc2", "-concurrency", "0"],
      code: 2,
      stderr: /-concurrency/,
    },
    {
      args: ["worker", "-nats", "nats://127.0.0.1:1", "-zone", "dc2", "-nats-replicas", "2"],
      code: 2,
      stderr: /-nats-replicas/,
    },
    {
      args: ["worker", "-nats", "nats://127.0.0.1:1", "extra"],
      code: 2,
      stderr: /unexpected argument: extra/,
    },
    { args: ["worker", "-h"], code: 0, stderr: /lookout worker -nats URL -zone NAME/ },
  ];
  for (const c of cases) {
    const r = await runLookout(c.args);
    assert.equal(r.code, c.code, `${c.args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, c.stderr, c.args.join(" "));
  }
});

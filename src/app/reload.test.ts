import assert from "node:assert/strict";
import { test } from "node:test";
import { Registry } from "prom-client";
import { type Config, EMPTY_CONFIG } from "../model/config.js";
import { silentLogger } from "../model/logger.js";
import { type LoadOutcome, Reloader } from "./reload.js";

const withHosts = (n: number): Config => ({
  ...EMPTY_CONFIG,
  hosts: new Map(Array.from({ length: n }, (_, i) => [`h${i}`, {} as never])),
});

async function metric(reg: Registry, name: string): Promise<string> {
  return (await reg.getSingleMetricAsString(name))
    .split("\n")
    .filter((l) => !l.startsWith("#"))
    .join("\n");
}

test("a valid reload swaps the config and reaches every consumer in order", async () => {
  const reg = new Registry();
  let next: LoadOutcome = { ok: true, config: withHosts(2) };
  const r = new Reloader(withHosts(1), { load: async () => next, logger: silentLogger, metrics: reg });
  const seen: string[] = [];
  r.register({ name: "a", applyConfig: (c) => void seen.push(`a${c.hosts.size}`) });
  r.register({ name: "b", applyConfig: async (c) => void seen.push(`b${c.hosts.size}`) });
  assert.deepEqual(seen, [], "consumers are built with the running config");
  assert.deepEqual(await r.reload("sighup"), { ok: true });
  assert.deepEqual(seen, ["a2", "b2"]);
  assert.equal(r.current.hosts.size, 2);
  next = { ok: false, diagnostics: [{ message: "bad", file: "f.cue", line: 3, column: 7 }] };
  const rejected = await r.reload("sighup");
  assert.equal(rejected.ok, false);
  assert.equal(r.current.hosts.size, 2, "a rejected document changes nothing");
  assert.deepEqual(seen, ["a2", "b2"], "and reaches no consumer");
  assert.match(
    await metric(reg, "lookout_config_reloads_total"),
    /result="success"} 1\n.*result="rejected"} 1/s,
  );
  assert.equal(
    await metric(reg, "lookout_config_last_reload_success"),
    "lookout_config_last_reload_success 0",
  );
  next = { ok: true, config: withHosts(3) };
  await r.reload("api");
  assert.equal(
    await metric(reg, "lookout_config_last_reload_success"),
    "lookout_config_last_reload_success 1",
  );
});

test("reloads never overlap", async () => {
  const events: string[] = [];
  let n = 0;
  const r = new Reloader(withHosts(0), {
    load: async () => {
      const me = ++n;
      events.push(`load${me}`);
      await new Promise((res) => setTimeout(res, 20));
      return { ok: true, config: withHosts(me) };
    },
    logger: silentLogger,
    metrics: new Registry(),
  });
  r.register({ name: "c", applyConfig: (c) => void events.push(`apply${c.hosts.size}`) });
  await Promise.all([r.reload("sighup"), r.reload("api")]);
  assert.deepEqual(events, ["load1", "apply1", "load2", "apply2"]);
});

test("SIGHUPs sent while one waits its turn share it, so an ApplyConfig waits for one at most", async () => {
  const events: string[] = [];
  let n = 0;
  const load = async (what: string) => {
    const me = ++n;
    events.push(`${what}${me}`);
    await new Promise((res) => setTimeout(res, 20));
    return { ok: true, config: withHosts(me) } as const;
  };
  const reg = new Registry();
  const r = new Reloader(withHosts(0), { load: () => load("file"), logger: silentLogger, metrics: reg });
  const running = r.reload("sighup");
  await new Promise((res) => setImmediate(res));
  assert.deepEqual(events, ["file1"], "the first one has started");
  const storm = Array.from({ length: 20 }, () => r.reload("sighup"));
  const api = r.reload("api", () => load("api"));
  const later = r.reload("sighup");
  await Promise.all([running, ...storm, api, later]);
  // The running one, one for the storm and the SIGHUP after the API's (it reads the file when its
  // turn comes, before the API's), and the API's; 19 of the storm and the later one coalesced.
  assert.deepEqual(events, ["file1", "file2", "api3"]);
  assert.ok(storm.every((p) => p === storm[0]));
  assert.equal(later, storm[0]);
  assert.notEqual(storm[0], running);
  assert.equal(r.current.hosts.size, 3);
  assert.equal(
    await metric(reg, "lookout_config_reloads_coalesced_total"),
    "lookout_config_reloads_coalesced_total 20",
  );
  // Once it has started, a new SIGHUP queues a reload of its own.
  const next = r.reload("sighup");
  assert.notEqual(next, storm[0]);
  await next;
  assert.deepEqual(events, ["file1", "file2", "api3", "file4"]);
});

test("a loader that throws or a failing consumer is an error, never a crash", async () => {
  const reg = new Registry();
  const r = new Reloader(withHosts(0), {
    load: async () => {
      throw new Error("disk gone");
    },
    logger: silentLogger,
    metrics: reg,
  });
  assert.deepEqual(await r.reload("sighup"), { ok: false, kind: "error", diagnostics: [] });
  r.register({
    name: "boom",
    applyConfig: (c) => {
      if (c.hosts.size > 0) throw new Error("nope");
    },
  });
  const res = await r.reload("api", async () => ({ ok: true, config: withHosts(1) }));
  assert.equal(res.ok, false);
  assert.match(await metric(reg, "lookout_config_reloads_total"), /result="error"} 2/);
});

test("a rejected document's repeated problem is logged once, with how many places have it", async () => {
  const lines: { msg: string; fields: Record<string, unknown> }[] = [];
  const logger = {
    debug() {},
    info() {},
    warn() {},
    error(msg: string, fields?: Record<string, unknown>) {
      lines.push({ msg, fields: { ...fields } });
    },
    child() {
      return logger;
    },
  };
  const message = "hosts.h0.check.timeout: bad (in 10,000 hosts: h0, h1 and 9,998 more)";
  const r = new Reloader(withHosts(1), {
    load: async () => ({
      ok: false,
      diagnostics: [
        { message, file: "f.cue", line: 3, column: 7, instances: 10_000 },
        { message: "contacts.a: worse", file: "f.cue", line: 9, column: 1 },
      ],
    }),
    logger,
    metrics: new Registry(),
  });
  await r.reload("sighup");
  const rejected = lines.filter((l) => l.msg === "config rejected");
  assert.deepEqual(
    rejected.map((l) => l.fields),
    [
      { file: "f.cue", line: 3, column: 7, problem: message, instances: 10_000 },
      { file: "f.cue", line: 9, column: 1, problem: "contacts.a: worse" },
    ],
  );
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { planHostCheck, planServiceCheck } from "../engine/scheduler/index.js";
import {
  type Config,
  DEFAULT_SCHEDULE,
  EMPTY_CONFIG,
  type HostConfig,
  type ServiceConfig,
} from "../model/config.js";
import {
  checkResultOf,
  decodeJob,
  decodeResult,
  encodeJob,
  encodeResult,
  jobEncoder,
  makeJob,
  makeResult,
  targetOfJob,
} from "./job.js";
import { jobSubject, resultSubject, zoneJobsFilter, zoneToken } from "./names.js";

const host: HostConfig = {
  name: "db1",
  address: "10.0.0.5",
  parents: [],
  vars: { role: "db" },
  check: { type: "tcp", address: "10.0.0.5:5432", ...DEFAULT_SCHEDULE },
  services: new Map<string, ServiceConfig>([
    [
      "pg",
      {
        host: "db1",
        name: "pg",
        vars: { port: "5432" },
        check: { type: "command", command: "check_pg", args: ["$USER2$"], ...DEFAULT_SCHEDULE },
        notification: "",
        zone: "dc2",
        labels: {},
      },
    ],
    [
      "disk",
      {
        host: "db1",
        name: "disk",
        vars: {},
        check: { type: "command", command: "check_disk", args: [], ...DEFAULT_SCHEDULE },
        notification: "",
        zone: "dc2",
        labels: {},
      },
    ],
  ]),
  notification: "",
  zone: "dc2",
  labels: { env: "prod" },
};
const other: HostConfig = { ...host, name: "web1", services: new Map() };
const config: Config = {
  ...EMPTY_CONFIG,
  hosts: new Map([
    ["db1", host],
    ["web1", other],
  ]),
  resources: { USER1: "pg-password", USER2: "arg-secret", USER3: "never-sent" },
  commands: new Map([
    [
      "check_pg",
      { name: "check_pg", line: "check_pgsql -H $HOSTADDRESS$ -p $USER1$ -x $ARG1$", shell: false },
    ],
    ["check_disk", { name: "check_disk", line: "check_disk -w 10%", shell: false }],
  ]),
};

test("a job carries its check and only the secrets that check expands", () => {
  const cases = [
    {
      name: "command with resources",
      plan: planServiceCheck(config, host, host.services.get("pg")!),
      resources: { USER1: "pg-password", USER2: "arg-secret" },
      command: "check_pg",
    },
    {
      name: "command without resources",
      plan: planServiceCheck(config, host, host.services.get("disk")!),
      resources: undefined,
      command: "check_disk",
    },
    { name: "tcp host check", plan: planHostCheck(config, host), resources: undefined, command: undefined },
  ];
  for (const c of cases) {
    const plan = c.plan!;
    const job = makeJob({
      key: plan.key,
      zone: "dc2",
      due: 1000,
      expiresAt: 61_000,
      timeoutMs: 10_000,
      leader: 7,
      target: plan.target,
    });
    const text = new TextDecoder().decode(encodeJob(job));
    assert.ok(!text.includes("never-sent"), `${c.name}: an unused resource leaks`);
    assert.ok(!text.includes("web1"), `${c.name}: another host leaks`);
    const back = decodeJob(encodeJob(job));
    assert.ok(back !== undefined, c.name);
    assert.deepEqual(back.resources, c.resources, c.name);
    assert.equal(back.command?.name, c.command, c.name);
    const target = targetOfJob(back);
    assert.deepEqual(target.probe, plan.target.probe, c.name);
    assert.equal(target.host.address, "10.0.0.5");
    assert.deepEqual(target.service?.vars, plan.target.service?.vars);
    assert.deepEqual(target.config.resources, c.resources ?? {});
    assert.equal(target.config.hosts.size, 1);
    // The dispatcher's per-object encoder makes the same bytes, run after run.
    const encode = jobEncoder({ key: plan.key, zone: "dc2", timeoutMs: 10_000, target: plan.target });
    assert.deepEqual(encode({ due: 1000, expiresAt: 61_000, leader: 7 }), encodeJob(job), c.name);
    const later = { due: 61_000, expiresAt: 121_000, leader: 9 };
    assert.deepEqual(
      encode(later),
      encodeJob(makeJob({ ...later, key: plan.key, zone: "dc2", timeoutMs: 10_000, target: plan.target })),
      c.name,
    );
  }
});

test("decoders refuse what is not a job or a result", () => {
  const bad = [
    "",
    "{",
    "null",
    '{"v":2,"key":"a","due":1}',
    '{"v":1,"key":"a"}',
    '{"v":1,"host":"a","exitStatus":9,"output":"","checkedAt":1}',
  ];
  for (const b of bad) {
    const data = new TextEncoder().encode(b);
    assert.equal(decodeJob(data), undefined, b);
    assert.equal(decodeResult(data), undefined, b);
  }
});

test("a result message becomes the active check result the server would have made", () => {
  const plan = planServiceCheck(config, host, host.services.get("pg")!)!;
  const job = makeJob({
    key: plan.key,
    zone: "dc2",
    due: 1000,
    expiresAt: 61_000,
    timeoutMs: 10_000,
    leader: 0,
    target: plan.target,
  });
  const r = decodeResult(
    encodeResult(
      makeResult(job, "w1", 1005, 42, { exitStatus: 1, output: "slow", longOutput: "x", perfdata: [] }),
    ),
  );
  assert.ok(r !== undefined);
  assert.equal(r.worker, "w1");
  assert.deepEqual(checkResultOf(r), {
    exitStatus: 1,
    output: "slow",
    longOutput: "x",
    perfdata: [],
    host: "db1",
    service: "pg",
    checkedAt: 1005,
    durationMs: 42,
    source: "active",
    executor: "w1",
  });
});

test("subjects: one token per zone and per object, whatever their names", () => {
  const zones = ["default", "dc-2", "a.b", "with space", "*", ">", "ünï"];
  const tokens = new Set<string>();
  for (const z of zones) {
    const t = zoneToken(z);
    assert.match(t, /^[A-Za-z0-9_-]+$/, z);
    tokens.add(t);
    assert.match(jobSubject(z, "host!svc.with.dots *>"), /^lookout\.job\.[A-Za-z0-9_-]+\.[0-9a-f]{20}$/);
    assert.equal(zoneJobsFilter(z), `lookout.job.${t}.>`);
    assert.equal(resultSubject(z), `lookout.result.${t}`);
  }
  assert.equal(tokens.size, zones.length, "distinct zones, distinct tokens");
  assert.notEqual(jobSubject("z", "a!b"), jobSubject("z", "a!c"));
});

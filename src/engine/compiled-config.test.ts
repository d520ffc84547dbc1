import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Config, EMPTY_CONFIG } from "../model/config.js";
import {
  type CompiledConfig,
  compileConfig,
  decodeCompiledConfig,
  encodeCompiledConfig,
  isEncodedCompiledConfig,
  lookupObject,
  serviceCount,
} from "./compiled-config.js";
import { buildConfig } from "./scenario/config-builder.js";
import { tokenize } from "./scenario/tokens.js";

function config(...lines: string[]): Config {
  return buildConfig(lines.map((l, i) => ({ text: tokenize(l), line: i + 1 })));
}

/** `hosts` hosts with the same `services` services each, as fleets built from templates are. */
function fleet(hosts: number, services: number): Config {
  const lines: string[] = [];
  for (let h = 0; h < hosts; h++) {
    lines.push(`host host-${h} label.env=${h % 2 === 0 ? "prod" : "dev"}`);
    for (let s = 0; s < services; s++) lines.push(`service host-${h}/svc-${s} check=passive freshness=24h`);
  }
  return config(...lines);
}

/** 300 hosts with three services each, every name distinct: more than a byte's worth of names. */
function manyNames(): Config {
  const lines: string[] = [];
  for (let h = 0; h < 300; h++) {
    lines.push(`host h${h} label.n=v${h % 7}`);
    for (let s = 0; s < 3; s++) lines.push(`service h${h}/s${h}-${s}`);
  }
  return config(...lines);
}

interface Case {
  readonly name: string;
  readonly config: Config;
  /** Every object's key, in object order. */
  readonly keys?: readonly string[];
  readonly layouts?: number;
  readonly checks?: number;
}

const cases: Case[] = [
  { name: "empty", config: EMPTY_CONFIG, keys: [], layouts: 0, checks: 0 },
  {
    name: "hosts, services, parents and labels",
    config: config(
      "host core max_attempts=2 label.tier=net",
      "host web max_attempts=2 parents=core,nowhere,web label.tier=web",
      "service web/http max_attempts=3 alpha=0.3 high=0.5 low=0.2",
      "service web/push check=passive freshness=2m stale=CRITICAL max_attempts=2",
      "host gw check=passive freshness=3m parents=core",
    ),
    keys: ["core", "web", "web!http", "web!push", "gw"],
    // core and gw have no services: one empty layout, and web's. core and web run the same check.
    layouts: 2,
    checks: 4,
  },
  {
    name: "hosts with the same services share one layout; another order is another layout",
    config: config(
      "host a",
      "service a/x",
      "service a/y",
      "host b",
      "service b/x",
      "service b/y",
      "host c",
      "service c/y",
      "service c/x",
    ),
    keys: ["a", "a!x", "a!y", "b", "b!x", "b!y", "c", "c!y", "c!x"],
    layouts: 2,
    checks: 2,
  },
  { name: "a fleet of 20 × 10", config: fleet(20, 10), layouts: 1, checks: 2 },
  { name: "more than 256 names", config: manyNames(), layouts: 300 },
];

/** Every object's key, from the tables. */
function keys(c: CompiledConfig): string[] {
  const out: string[] = [];
  for (let i = 0; i < c.size; i++) {
    const host = c.names[c.nameOf[c.hostOf[i] as number] as number] as string;
    out.push(c.hostOf[i] === i ? host : `${host}!${c.names[c.nameOf[i] as number]}`);
  }
  return out;
}

describe("compileConfig", () => {
  for (const c of cases) {
    it(c.name, () => {
      const compiled = compileConfig(c.config);
      const want: string[] = [];
      for (const h of c.config.hosts.values()) {
        want.push(h.name);
        for (const s of h.services.values()) want.push(`${h.name}!${s.name}`);
      }
      if (c.keys !== undefined) assert.deepEqual(want, c.keys);
      assert.deepEqual(keys(compiled), want);
      if (c.layouts !== undefined) assert.equal(compiled.layouts.length, c.layouts);
      if (c.checks !== undefined) assert.equal(compiled.checks.length, c.checks);
      for (const h of c.config.hosts.values()) {
        const host = lookupObject(compiled, h.name, undefined) as number;
        assert.equal(keys(compiled)[host], h.name);
        assert.equal(serviceCount(compiled, host), h.services.size);
        assert.deepEqual(compiled.labelSets[compiled.labelsOf[host] as number], h.labels);
        const check = compiled.checks[compiled.checkOf[host] as number];
        assert.equal(check?.maxAttempts, h.check.maxAttempts);
        assert.deepEqual(check?.flap, h.check.flap);
        const parents = (compiled.parents.get(host) ?? []).map((p) => keys(compiled)[p]);
        assert.deepEqual(
          parents,
          h.parents.filter((p) => p !== h.name && c.config.hosts.has(p)),
        );
        for (const s of h.services.values()) {
          const i = lookupObject(compiled, h.name, s.name) as number;
          assert.equal(keys(compiled)[i], `${h.name}!${s.name}`);
          assert.deepEqual(compiled.labelSets[compiled.labelsOf[i] as number], s.labels);
          assert.equal(compiled.checks[compiled.checkOf[i] as number]?.type, s.check.type);
        }
      }
      assert.equal(lookupObject(compiled, "no-such-host", undefined), undefined);
      const first = c.config.hosts.keys().next().value;
      if (first !== undefined) assert.equal(lookupObject(compiled, first, "no-such-service"), undefined);
    });
  }

  it("keeps of a check what the engine reads, and nothing of the probe", () => {
    const c = compileConfig(
      config("host web address=10.1.2.3 check=tcp", "service web/p check=passive freshness=5m"),
    );
    assert.deepEqual(Object.keys(c.checks[0] as object).sort(), [
      "checkIntervalMs",
      "flap",
      "maxAttempts",
      "retryIntervalMs",
      "timeoutMs",
      "type",
    ]);
    assert.ok("freshnessThresholdMs" in (c.checks[1] as object));
    assert.ok("staleStatus" in (c.checks[1] as object));
  });
});

describe("encodeCompiledConfig", () => {
  for (const c of cases) {
    it(`${c.name}: decodes to the same tables, cloned or not`, () => {
      const compiled = compileConfig(c.config);
      const text = encodeCompiledConfig(compiled);
      assert.ok(isEncodedCompiledConfig(text));
      assert.deepStrictEqual(decodeCompiledConfig(text), compiled);
      assert.deepStrictEqual(decodeCompiledConfig(encodeCompiledConfig(structuredClone(compiled))), compiled);
    });
  }

  it("writes a fleet in under 20 bytes per object", () => {
    const c = compileConfig(fleet(100, 100));
    const text = encodeCompiledConfig(c);
    assert.ok(text.length < 20 * c.size, `${text.length} bytes for ${c.size} objects`);
  });

  const broken: [string, (e: Record<string, unknown>) => void][] = [
    ["not a compiled config", (e) => Object.assign(e, { compiled: 2 })],
    ["per-object tables of different lengths", (e) => Object.assign(e, { checkOf: [] })],
    ["host layouts do not match the objects", (e) => Object.assign(e, { hostLayouts: [0] })],
  ];
  for (const [message, edit] of broken) {
    it(`refuses a text whose ${message}`, () => {
      const e = JSON.parse(encodeCompiledConfig(compileConfig(config("host a", "service a/x", "host b"))));
      edit(e);
      assert.throws(() => decodeCompiledConfig(JSON.stringify(e)), new RegExp(message));
    });
  }
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatDiagnostic } from "../diagnostic.js";
import { loadConfig } from "../loader.js";
import { summarize } from "../validate-cli.js";
import { generateFleet } from "./generate-fleet.js";

describe("generateFleet", () => {
  /** [services, services per host, summary]. */
  const cases: [number, number | undefined, string][] = [
    [50, undefined, "f.cue: ok: 5 hosts, 50 services, 2 contacts, 1 policy, 2 sinks, 2 views"],
    [7, 3, "f.cue: ok: 3 hosts, 7 services, 2 contacts, 1 policy, 2 sinks, 2 views"],
  ];
  for (const [services, servicesPerHost, want] of cases) {
    it(`${services} services load as a valid document`, () => {
      const text = generateFleet(
        servicesPerHost === undefined ? { services } : { services, servicesPerHost },
      );
      const r = loadConfig({ file: "f.cue", text });
      assert.ok(r.ok, r.ok ? "" : r.diagnostics.slice(0, 5).map(formatDiagnostic).join("\n"));
      assert.equal(summarize("f.cue", r.config), want);
    });
  }
  it("is deterministic", () => {
    assert.equal(generateFleet({ services: 30 }), generateFleet({ services: 30 }));
  });
});

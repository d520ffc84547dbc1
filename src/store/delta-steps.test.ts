import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { Core } from "../core/core.js";
import { fleetConfig, fleetHost, fleetService } from "../core/fleet-config.js";
import type { PluginResultInput } from "../core/plugin-result.js";
import { FakeClock } from "../testing/fake-clock.js";

// The reader applies deltas from the writer 500 records per macrotask (src/store/store.ts), so a
// big part is applied over several turns of the event loop. What must see a delta whole — flush,
// visibility callbacks — waits for its last step, and reads run between the steps.

const HOSTS = 100;
const SERVICES = 60;

function results(version: number): PluginResultInput[] {
  const out: PluginResultInput[] = [];
  for (let h = 0; h < HOSTS; h++) {
    for (let s = 0; s < SERVICES; s++) {
      out.push({
        type: "ProcessCheckResult",
        parse: true,
        result: {
          host: fleetHost(h),
          service: fleetService(s),
          exitStatus: 0,
          output: `OK - version ${version}`,
          checkedAt: Date.UTC(2026, 0, 1) + version,
          durationMs: 0,
          source: "passive",
        },
      });
    }
  }
  return out;
}

describe("deltas applied in steps", () => {
  // Batches of 6,000 results: the writer's parts then hold up to 4,000 records.
  const cases = [
    { name: "one batch, then flush", batches: 1 },
    { name: "three batches in flight, then flush", batches: 3 },
  ];
  for (const c of cases) {
    it(`${c.name}: every record is visible once flush resolves`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "lookout-steps-"));
      const core = await Core.open({
        dataDir: dir,
        config: fleetConfig({ hosts: HOSTS, servicesPerHost: SERVICES }),
        clock: new FakeClock(Date.UTC(2026, 0, 1)),
      });
      try {
        // Turns of this thread's event loop while the batches are applied: reads could be served.
        let turns = 0;
        let busy = true;
        const count = (async () => {
          while (busy) {
            await yieldToLoop();
            turns++;
          }
        })();
        let visible = 0;
        const submitted = [];
        for (let v = 1; v <= c.batches; v++) {
          submitted.push(core.submit(results(v), { onVisible: () => visible++ }));
        }
        await Promise.all(submitted);
        await core.flush();
        busy = false;
        await count;
        assert.equal(visible, c.batches, "every batch announced visible");
        const { index, projection } = core.view;
        for (let h = 0; h < HOSTS; h++) {
          for (let s = 0; s < SERVICES; s++) {
            const key = `${fleetHost(h)}!${fleetService(s)}`;
            assert.equal(projection.status(key)?.output, `OK - version ${c.batches}`, key);
          }
        }
        assert.equal(projection.size(), HOSTS * SERVICES);
        assert.ok(index.size > HOSTS * SERVICES);
        assert.ok(turns > 3, `the event loop turned ${turns} times`);
      } finally {
        await core.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

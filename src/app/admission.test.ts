import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BusyError, createAdmission } from "./admission.js";

describe("createAdmission", () => {
  // n submissions at once, each held until released; what each gets and how many ran at a time.
  const cases: { queue: number; n: number; refused: number }[] = [
    { queue: 1, n: 1, refused: 0 },
    { queue: 1, n: 2, refused: 0 },
    { queue: 1, n: 3, refused: 1 },
    { queue: 1, n: 6, refused: 4 },
    { queue: 0, n: 3, refused: 2 },
    { queue: 3, n: 6, refused: 2 },
  ];
  for (const c of cases) {
    it(`queue ${c.queue}, ${c.n} at once: ${c.refused} refused, one at a time`, async () => {
      const a = createAdmission(c.queue);
      let running = 0;
      let most = 0;
      const gates: (() => void)[] = [];
      const runs = Array.from({ length: c.n }, (_, i) =>
        a
          .run(async () => {
            running++;
            most = Math.max(most, running);
            await new Promise<void>((r) => gates.push(r));
            running--;
            return i;
          })
          .then(
            (v) => ({ ok: true as const, v }),
            (e: unknown) => ({ ok: false as const, busy: e instanceof BusyError }),
          ),
      );
      // Release whatever runs, one by one, until all have settled.
      let settled = false;
      void Promise.all(runs).then(() => {
        settled = true;
      });
      while (!settled) {
        await new Promise((r) => setImmediate(r));
        gates.shift()?.();
      }
      const out = await Promise.all(runs);
      assert.equal(out.filter((o) => !o.ok && o.busy).length, c.refused);
      assert.equal(out.filter((o) => o.ok).length, c.n - c.refused);
      assert.equal(most, 1);
      assert.deepEqual(a.load, { running: 0, waiting: 0 });
    });
  }
  it("a failing evaluation frees its place", async () => {
    const a = createAdmission(0);
    await assert.rejects(
      a.run(() => Promise.reject(new Error("x"))),
      /x/,
    );
    assert.equal(await a.run(() => Promise.resolve(7)), 7);
  });
});

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const V8_HEAP = fileURLToPath(new URL("./v8-heap.js", import.meta.url));

/**
 * A fresh process that (maybe) imports v8-heap.js, keeps ~60 MB of objects, then allocates ~600 MB
 * of objects that live long enough to be promoted to the old generation and then die: prints the
 * most the old space ever committed, in MiB.
 */
function oldSpaceAfterChurn(importFirst: boolean): number {
  const script = `
    ${importFirst ? `await import(${JSON.stringify(V8_HEAP)});` : ""}
    const { getHeapSpaceStatistics } = await import("node:v8");
    const oldSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "old_space").space_size;
    const keep = (globalThis.keep = []);
    for (let i = 0; i < 600000; i++) keep.push({ i, a: [i, i + 1, i + 2], s: "k" + i });
    const ring = new Array(200000);
    let most = 0;
    for (let i = 0; i < 6e6; i++) {
      ring[i % ring.length] = { i, a: [i], s: "x" + i };
      if (i % 100000 === 0) most = Math.max(most, oldSpace());
    }
    process.stdout.write(String(most / 1048576));
  `;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
}

describe("the server's V8 heap flags", () => {
  // [imports v8-heap.js, least old space (MiB), most]: the live set is ~180 MB at its largest; V8's
  // default lets the old generation grow to ~2.5 times that before collecting, the flags to ~1.1.
  const cases: [boolean, number, number][] = [
    [false, 300, Number.POSITIVE_INFINITY],
    [true, 0, 250],
  ];
  for (const [importFirst, least, most] of cases) {
    it(`${importFirst ? "with" : "without"} them the old space stays within [${least}, ${most}] MiB`, () => {
      const mib = oldSpaceAfterChurn(importFirst);
      assert.ok(mib >= least && mib <= most, `old space ${mib} MiB`);
    });
  }
});

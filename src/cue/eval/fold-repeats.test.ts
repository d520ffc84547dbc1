import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CueError, compile } from "../index.js";

const schema = compile([{ name: "schema.cue", text: "#S: hosts: [string]: {port: int, name: string}\n" }]);

/** 20 hosts from one template whose `port` is a string; `own` adds lines of the hosts' own. */
function fleet(own: string): string {
  const hosts = Array.from({ length: 20 }, (_, i) => `\th${i}: {}`).join("\n");
  return `hosts: [N=string]: {port: "80", name: N}\nhosts: {\n${hosts}\n}\n${own}`;
}

function errorsOf(text: string, fold: boolean): CueError[] {
  const root = schema.lookup(["#S"]);
  assert.ok(root !== undefined);
  const u = root.unify(compile([{ name: "fleet.cue", text }]), { foldRepeatedErrors: fold });
  const r = u.export();
  assert.equal(r.ok, false);
  return r.ok ? [] : [...r.errors, ...u.validate({ concrete: true })];
}

const paths = (es: readonly CueError[]): string[] => [...new Set(es.map((e) => e.path.join(".")))].sort();

describe("fold repeated errors: a template's mistake in every host of a large struct", () => {
  it("finds the error in every host, exactly as without folding", () => {
    const off = errorsOf(fleet(""), false);
    const on = errorsOf(fleet(""), true);
    assert.equal(paths(on).length, 20);
    assert.deepEqual(paths(on), paths(off));
    assert.deepEqual(
      on.map((e) => `${e.path.join(".")} ${e.message} ${JSON.stringify(e.positions)}`).sort(),
      off.map((e) => `${e.path.join(".")} ${e.message} ${JSON.stringify(e.positions)}`).sort(),
    );
  });

  it("a host where the same field fails differently is walked whole", () => {
    const on = errorsOf(fleet("hosts: h10: port: 8080\n"), true);
    const h10 = on.filter((e) => e.path[1] === "h10");
    assert.ok(h10.length > 0);
    assert.ok(h10.every((e) => e.message !== on.find((x) => x.path[1] === "h0")?.message));
    assert.equal(paths(on).filter((p) => p.endsWith(".port")).length, 20);
  });

  it("a host with a problem of its own besides the template's: reported before the repeat is known, not after", () => {
    // h1 is walked whole (the repeat is known once h2 and h3 have the same errors) and keeps its
    // own problem; h15 is checked for the template's mistake only.
    const own = "hosts: h1: name: 5\nhosts: h15: name: 5\n";
    const off = errorsOf(fleet(own), false);
    const on = errorsOf(fleet(own), true);
    assert.ok(paths(off).includes("hosts.h1.name") && paths(off).includes("hosts.h15.name"));
    assert.ok(paths(on).includes("hosts.h1.name"));
    assert.ok(!paths(on).includes("hosts.h15.name"));
    assert.equal(paths(on).filter((p) => p.endsWith(".port")).length, 20);
  });
});

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { documentSha256, openConfigHistory, versionsOfRows } from "./config-versions.js";
import { EventLog } from "./event-log.js";
import { Database } from "./sqlite.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "lookout-config-versions-"));
  dirs.push(d);
  return d;
}
const row = (at: number, digest: string, note?: object) => ({
  at,
  body: JSON.stringify({ type: "ApplyConfig", at, digest, ...(note === undefined ? {} : { note }) }),
});

describe("config versions in the event log", () => {
  test("recorded with the enqueue, newest first, paged; a text is stored once", () => {
    const dir = tempDir();
    const log = EventLog.open(dir);
    const A = 'hosts: a: {address: "127.0.0.1"}\n';
    const B = 'hosts: b: {address: "127.0.0.1"}\n';
    const steps: [number, string, string, number?][] = [
      [1000, A, "startup"],
      [2000, B, "root"],
      [3000, A, "root", 1],
      [4000, B, "SIGHUP"],
    ];
    for (const [at, text, by, rollbackOf] of steps) {
      log.enqueue([row(at, `d${at}`)], [{ digest: `d${at}`, body: "{}" }], undefined, [
        { at, text, by, summary: `+0 ~0 -0 objects`, ...(rollbackOf === undefined ? {} : { rollbackOf }) },
      ]);
    }
    assert.equal(log.hasConfigVersions(), true);
    log.close();

    const h = openConfigHistory(dir);
    try {
      assert.deepEqual(
        h.list(undefined, 10).map((v) => [v.version, v.at, v.by, v.rollbackOf, v.sha256]),
        [
          [4, 4000, "SIGHUP", 0, documentSha256(B)],
          [3, 3000, "root", 1, documentSha256(A)],
          [2, 2000, "root", 0, documentSha256(B)],
          [1, 1000, "startup", 0, documentSha256(A)],
        ],
      );
      assert.deepEqual(
        h.list(3, 2).map((v) => v.version),
        [2, 1],
      );
      assert.equal(h.text(3), A);
      assert.equal(h.text(4), B);
      assert.equal(h.text(5), undefined);
      assert.equal(h.get(2)?.bytes, Buffer.byteLength(B));
      assert.equal(h.newest()?.version, 4);
    } finally {
      h.close();
    }
    const db = new Database(join(dir, "lookout.db"), { readonly: true });
    assert.equal((db.prepare("SELECT count(*) AS n FROM config_documents").get() as { n: number }).n, 2);
    db.close();
  });

  test("the newest version's document again records nothing", () => {
    const dir = tempDir();
    const log = EventLog.open(dir);
    const A = "hosts: {}\n";
    for (const at of [1, 2]) {
      log.enqueue([row(at, `d${at}`)], [], undefined, [{ at, text: A, by: "SIGHUP", summary: "" }]);
    }
    log.close();
    const h = openConfigHistory(dir);
    assert.deepEqual(
      h.list(undefined, 10).map((v) => v.version),
      [1],
    );
    h.close();
  });

  test("a version is written in the enqueue's transaction: a failed enqueue records none", () => {
    const dir = tempDir();
    const log = EventLog.open(dir);
    // A body SQLite refuses (NOT NULL) fails the transaction after the version was inserted.
    assert.throws(() =>
      log.enqueue(
        [{ at: 1, body: null as unknown as string, packed: null as unknown as Uint8Array }],
        [],
        undefined,
        [{ at: 1, text: "x: 1\n", by: "root", summary: "" }],
      ),
    );
    assert.equal(log.hasConfigVersions(), false);
    log.close();
  });
});

describe("versionsOfRows (replicated groups)", () => {
  const enc = new TextEncoder();
  const cases: {
    name: string;
    rows: { at: number; body: string | Uint8Array }[];
    texts: Record<string, string>;
    want: { at: number; by: string; rollbackOf?: number; text: string }[];
  }[] = [
    {
      name: "an ApplyConfig row with a note and its source",
      rows: [{ at: 5, body: enc.encode(row(5, "x", { by: "root", summary: "s", rollbackOf: 2 }).body) }],
      texts: { x: "doc" },
      want: [{ at: 5, by: "root", rollbackOf: 2, text: "doc" }],
    },
    {
      name: "command batches and a row without a note record nothing",
      rows: [
        { at: 1, body: enc.encode('[{"type":"ProcessCheckResult"}]') },
        { at: 2, body: row(2, "x").body },
      ],
      texts: { x: "doc" },
      want: [],
    },
    {
      name: "a row whose source the publisher did not have records nothing",
      rows: [{ at: 3, body: row(3, "y", { by: "SIGHUP", summary: "" }).body }],
      texts: {},
      want: [],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const got = versionsOfRows(c.rows, (d) => c.texts[d]).map((v) => ({
        at: v.at,
        by: v.by,
        ...(v.rollbackOf === undefined ? {} : { rollbackOf: v.rollbackOf }),
        text: v.text,
      }));
      assert.deepEqual(got, c.want);
    });
  }
});

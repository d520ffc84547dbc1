/**
 * ListHistory and ListPerfdata below the API: a scenario on the injected clock (results soft and
 * hard, an acknowledgement, a downtime, flapping) writes the log through a real Core; the history
 * read back from the log (Core.historyFromLog) must be the projection's own feed, entry for entry,
 * however it is paged, filtered or ordered, and the perfdata read back the results submitted.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { CheckResult } from "../model/check-result.js";
import type { ExitStatus } from "../model/state.js";
import type { LogHistoryQuery } from "../store/log-history.js";
import type { HistoryRecord } from "../store/records.js";
import { Database } from "../store/sqlite.js";
import { FakeClock } from "../testing/fake-clock.js";
import { Core } from "./core.js";
import { fleetConfig } from "./fleet-config.js";
import type { CommandInput } from "./validate.js";

const MINUTE = 60_000;
const H0 = "host-00000";
const H1 = "host-00001";
const config = fleetConfig({ hosts: 2, servicesPerHost: 2, maxAttempts: 2 });

function result(host: string, service: string | undefined, exitStatus: number, at: number): CommandInput {
  const r: CheckResult = {
    host,
    ...(service === undefined ? {} : { service }),
    exitStatus: exitStatus as ExitStatus,
    output: `status ${exitStatus} at ${at}`,
    longOutput: "",
    perfdata: [
      { label: "v", value: exitStatus, uom: "s", warn: "1", crit: "2" },
      ...(exitStatus === 2 ? [] : [{ label: "ok", value: at, uom: "", warn: "", crit: "", min: 0 }]),
    ],
    checkedAt: at,
    durationMs: 0,
    source: "passive",
  };
  return { type: "ProcessCheckResult", result: r };
}

let dir: string;
let core: Core;
const clock = new FakeClock(Date.UTC(2026, 10, 1));
/** The projection's feed after the scenario, oldest first; and the clock before each step. */
let feed: HistoryRecord[];
const stepTimes: number[] = [];

async function step(commands: CommandInput[]): Promise<void> {
  stepTimes.push(clock.now());
  if (commands.length > 0) await core.submit(commands);
  await core.flush();
  clock.advance(MINUTE);
  await core.flush();
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "lookout-history-log-"));
  core = await Core.open({ dataDir: dir, config, clock });
  await step([result(H0, undefined, 0, clock.now()), result(H0, "svc-000", 2, clock.now())]);
  await step([result(H0, "svc-000", 2, clock.now()), result(H0, "svc-001", 1, clock.now())]);
  await step([
    {
      type: "AcknowledgeProblem",
      target: { object: { host: H0, service: "svc-000" } },
      sticky: false,
      author: "ops",
      comment: "looking",
    },
  ]);
  await step([
    {
      type: "ScheduleDowntime",
      target: { object: { host: H1 } },
      start: clock.now() + 1_000,
      end: clock.now() + 3 * MINUTE,
      author: "ops",
      comment: "maintenance",
    },
    result(H1, "svc-000", 2, clock.now()),
  ]);
  for (let i = 0; i < 12; i++) {
    const s = i % 2 === 0 ? 0 : 2;
    await step([result(H0, "svc-001", s, clock.now()), result(H0, "svc-001", s, clock.now() + 1)]);
  }
  await step([result(H0, "svc-000", 0, clock.now())]);
  const h = core.view.projection.history();
  feed = Array.from({ length: h.size }, (_, i) => h.at(i));
});

after(async () => {
  await core.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every page of a query, in order, through the cursors. */
async function walk(q: Omit<LogHistoryQuery, "cursor">): Promise<{ items: HistoryRecord[]; pages: number }> {
  const items: HistoryRecord[] = [];
  let cursor: number | undefined;
  let pages = 0;
  do {
    const page = await core.historyFromLog({ ...q, ...(cursor === undefined ? {} : { cursor }) });
    assert.ok(page.items.length <= q.limit);
    items.push(...page.items);
    cursor = page.cursor;
    pages++;
    assert.ok(pages < 10_000, "the walk ends");
  } while (cursor !== undefined);
  return { items, pages };
}

describe("Core.historyFromLog", () => {
  it("the scenario made every kind of history it claims to", () => {
    const kinds = new Set(feed.map((h) => h.kind));
    for (const k of [
      "StateChange",
      "AcknowledgementSet",
      "DowntimeScheduled",
      "DowntimeStarted",
      "FlappingStart",
    ])
      assert.ok(kinds.has(k), `${k} in ${[...kinds].join(", ")}`);
  });

  it("the writer indexed every entry in the log's history table", () => {
    const db = new Database(join(dir, "lookout.db"), { readonly: true });
    try {
      assert.deepEqual(
        db.prepare("SELECT seq, key, kind FROM history ORDER BY seq").all(),
        feed.map((h) => ({ seq: h.seq, key: h.key, kind: h.kind })),
      );
    } finally {
      db.close();
    }
  });

  const cases: readonly {
    name: string;
    q: Partial<LogHistoryQuery>;
    want: (h: HistoryRecord) => boolean;
  }[] = [
    { name: "everything", q: {}, want: () => true },
    { name: "one object", q: { keys: [`${H0}!svc-001`] }, want: (h) => h.key === `${H0}!svc-001` },
    { name: "a host alone", q: { keys: [H1] }, want: (h) => h.key === H1 },
    {
      name: "two objects",
      q: { keys: [H1, `${H0}!svc-000`] },
      want: (h) => h.key === H1 || h.key === `${H0}!svc-000`,
    },
    { name: "no object", q: { keys: [] }, want: () => false },
    { name: "state changes", q: { kinds: ["StateChange"] }, want: (h) => h.kind === "StateChange" },
    {
      name: "acknowledgements and downtimes",
      q: { kinds: ["AcknowledgementSet", "DowntimeScheduled", "DowntimeStarted"] },
      want: (h) => ["AcknowledgementSet", "DowntimeScheduled", "DowntimeStarted"].includes(h.kind),
    },
    {
      name: "since (the log's time: when the command was accepted)",
      q: { since: Date.UTC(2026, 10, 1) + 5 * MINUTE },
      want: (h) => h.at >= Date.UTC(2026, 10, 1) + 5 * MINUTE,
    },
    {
      name: "since and until",
      q: { since: Date.UTC(2026, 10, 1) + 2 * MINUTE, until: Date.UTC(2026, 10, 1) + 9 * MINUTE },
      want: (h) => h.at >= Date.UTC(2026, 10, 1) + 2 * MINUTE && h.at < Date.UTC(2026, 10, 1) + 9 * MINUTE,
    },
    {
      name: "an empty range",
      q: { since: Date.UTC(2026, 10, 1) + 2 * MINUTE, until: Date.UTC(2026, 10, 1) + 2 * MINUTE },
      want: () => false,
    },
    { name: "a range before the log", q: { until: Date.UTC(2026, 9, 1) }, want: () => false },
    { name: "a range after the log", q: { since: Date.UTC(2027, 0, 1) }, want: () => false },
  ];
  for (const c of cases) {
    for (const limit of [1, 3, 1000]) {
      for (const oldestFirst of [false, true]) {
        it(`${c.name}, pages of ${limit}, ${oldestFirst ? "oldest" : "newest"} first: every entry once`, async () => {
          const expected = feed.filter(c.want);
          if (!oldestFirst) expected.reverse();
          const { items, pages } = await walk({ limit, oldestFirst, budgetMs: 60_000, ...c.q });
          assert.deepEqual(items, expected);
          // Full pages until the last: no empty page at the end.
          assert.equal(pages, Math.max(1, Math.ceil(expected.length / limit)));
        });
      }
    }
  }

  it("a scan out of time answers what it found and a cursor: still every entry once", async () => {
    for (const oldestFirst of [false, true]) {
      const expected = oldestFirst ? feed : [...feed].reverse();
      const { items, pages } = await walk({ limit: 5, oldestFirst, budgetMs: 0 });
      assert.deepEqual(items, expected);
      assert.ok(pages > Math.ceil(feed.length / 5), `${pages} pages: one group per page`);
    }
  });

  it("events appended between pages never shift them", async () => {
    const first = await core.historyFromLog({ limit: 4, oldestFirst: false, budgetMs: 60_000 });
    const firstUp = await core.historyFromLog({ limit: 4, oldestFirst: true, budgetMs: 60_000 });
    // More history arrives.
    await step([result(H1, "svc-001", 2, clock.now()), result(H1, "svc-001", 2, clock.now() + 1)]);
    await step([result(H1, "svc-001", 0, clock.now())]);
    const h = core.view.projection.history();
    const now = Array.from({ length: h.size }, (_, i) => h.at(i));
    assert.ok(now.length > feed.length);
    const rest = await walk({
      limit: 4,
      oldestFirst: false,
      budgetMs: 60_000,
      cursor: first.cursor,
    } as never);
    assert.deepEqual([...first.items, ...rest.items], [...feed].reverse());
    const restUp = await walk({
      limit: 4,
      oldestFirst: true,
      budgetMs: 60_000,
      cursor: firstUp.cursor,
    } as never);
    assert.deepEqual([...firstUp.items, ...restUp.items], now);
  });
});

describe("Core.historyFromLog from a log whose history table began midway", () => {
  let now: HistoryRecord[];
  before(() => {
    const h = core.view.projection.history();
    now = Array.from({ length: h.size }, (_, i) => h.at(i));
    // As if the log were older than the table: the first half of its entries are not indexed.
    const mid = (now[Math.floor(now.length / 2)] as HistoryRecord).seq;
    const db = new Database(join(dir, "lookout.db"));
    try {
      db.prepare("DELETE FROM history WHERE seq < ?").run(mid);
      db.prepare("UPDATE meta SET value = ? WHERE key = 'history_from'").run(mid);
    } finally {
      db.close();
    }
  });
  const cases: readonly { name: string; q: Partial<LogHistoryQuery>; want: (h: HistoryRecord) => boolean }[] =
    [
      { name: "everything", q: {}, want: () => true },
      { name: "one object", q: { keys: [`${H0}!svc-001`] }, want: (h) => h.key === `${H0}!svc-001` },
      { name: "state changes", q: { kinds: ["StateChange"] }, want: (h) => h.kind === "StateChange" },
      {
        name: "since and until",
        q: { since: Date.UTC(2026, 10, 1) + 2 * MINUTE, until: Date.UTC(2026, 10, 1) + 12 * MINUTE },
        want: (h) => h.at >= Date.UTC(2026, 10, 1) + 2 * MINUTE && h.at < Date.UTC(2026, 10, 1) + 12 * MINUTE,
      },
    ];
  for (const c of cases) {
    for (const limit of [1, 3, 1000]) {
      for (const oldestFirst of [false, true]) {
        it(`${c.name}, pages of ${limit}, ${oldestFirst ? "oldest" : "newest"} first: the index and the scan, every entry once`, async () => {
          const expected = now.filter(c.want);
          if (!oldestFirst) expected.reverse();
          const { items, pages } = await walk({ limit, oldestFirst, budgetMs: 60_000, ...c.q });
          assert.deepEqual(items, expected);
          assert.equal(pages, Math.max(1, Math.ceil(expected.length / limit)));
        });
      }
    }
  }
});

describe("Core.perfdataFromLog", () => {
  it("one object's perfdata, each label a series aligned with the results' times", async () => {
    const s = await core.perfdataFromLog({ key: `${H0}!svc-000`, labels: [], maxPoints: 1000 });
    const t0 = stepTimes[0] as number;
    assert.deepEqual(Array.from(s.times), [t0, stepTimes[1], stepTimes.at(-3)]);
    assert.equal(s.downsampled, false);
    assert.deepEqual(
      s.series.map((x) => [x.label, x.uom, x.warn, x.crit, x.min, Array.from(x.values)]),
      [
        ["v", "s", "1", "2", undefined, [2, 2, 0]],
        ["ok", "", "", "", 0, [Number.NaN, Number.NaN, stepTimes.at(-3)]],
      ],
    );
  });

  it("a range, a label, and reduction to the minimum and maximum per bucket", async () => {
    const key = `${H0}!svc-001`;
    const all = await core.perfdataFromLog({ key, labels: ["v"], maxPoints: 1000 });
    assert.equal(all.times.length, 25);
    assert.deepEqual(
      all.series.map((x) => x.label),
      ["v"],
    );
    const reduced = await core.perfdataFromLog({ key, labels: ["v"], maxPoints: 6 });
    assert.equal(reduced.downsampled, true);
    assert.ok(reduced.times.length <= 6, `${reduced.times.length} times`);
    const values = Array.from(reduced.series[0]?.values ?? []);
    assert.ok(values.includes(0) && values.includes(2), "both extremes survive");
    const ranged = await core.perfdataFromLog({
      key,
      since: stepTimes[4] as number,
      until: stepTimes[6] as number,
      labels: [],
      maxPoints: 1000,
    });
    assert.deepEqual(Array.from(ranged.times), [
      stepTimes[4],
      (stepTimes[4] as number) + 1,
      stepTimes[5],
      (stepTimes[5] as number) + 1,
    ]);
    const none = await core.perfdataFromLog({ key, since: Date.UTC(2027, 0, 1), labels: [], maxPoints: 10 });
    assert.deepEqual([none.times.length, none.series.length, none.downsampled], [0, 0, false]);
  });
});

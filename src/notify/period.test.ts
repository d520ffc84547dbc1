import assert from "node:assert/strict";
import { test } from "node:test";
import type { WEEKDAYS, WindowConfig } from "../model/config.js";
import { createNotifyZone, inPeriod, nextPeriodOpen, TimeZoneError } from "./period.js";

function w(spec: string): WindowConfig {
  const [day, range] = spec.split("@") as [string, string];
  const [start, end] = range.split("-") as [string, string];
  const min = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));
  return {
    weekday: day as (typeof WEEKDAYS)[number],
    start,
    end,
    startMinute: min(start),
    endMinute: min(end),
  };
}

const utc = (s: string) => Date.parse(s);

test("inPeriod and nextPeriodOpen, in UTC and across daylight saving in Berlin", () => {
  const cases: { zone: string; period: string[]; at: string; inside: boolean; opens?: string }[] = [
    { zone: "UTC", period: [], at: "2026-01-01T03:00:00Z", inside: true, opens: "2026-01-01T03:00:00Z" },
    // 2026-01-01 is a Thursday.
    {
      zone: "UTC",
      period: ["thursday@09:00-17:00"],
      at: "2026-01-01T08:59:59Z",
      inside: false,
      opens: "2026-01-01T09:00:00Z",
    },
    { zone: "UTC", period: ["thursday@09:00-17:00"], at: "2026-01-01T09:00:00Z", inside: true },
    {
      zone: "UTC",
      period: ["thursday@09:00-17:00"],
      at: "2026-01-01T17:00:00Z",
      inside: false,
      opens: "2026-01-08T09:00:00Z",
    },
    { zone: "UTC", period: ["thursday@20:00-24:00"], at: "2026-01-01T23:59:59Z", inside: true },
    {
      zone: "UTC",
      period: ["thursday@20:00-24:00", "friday@00:00-06:00"],
      at: "2026-01-02T00:00:00Z",
      inside: true,
    },
    {
      zone: "UTC",
      period: ["monday@09:00-10:00"],
      at: "2026-01-01T12:00:00Z",
      inside: false,
      opens: "2026-01-05T09:00:00Z",
    },
    {
      zone: "Europe/Berlin",
      period: ["thursday@09:00-17:00"],
      at: "2026-01-01T07:59:00Z",
      inside: false,
      opens: "2026-01-01T08:00:00Z",
    },
    { zone: "Europe/Berlin", period: ["thursday@09:00-17:00"], at: "2026-01-01T08:00:00Z", inside: true },
    // Summer time starts Sunday 2026-03-29: 09:00 local is 08:00 UTC before, 07:00 UTC after.
    {
      zone: "Europe/Berlin",
      period: ["monday@09:00-10:00"],
      at: "2026-03-28T12:00:00Z",
      inside: false,
      opens: "2026-03-30T07:00:00Z",
    },
    { zone: "Europe/Berlin", period: ["sunday@00:00-24:00"], at: "2026-03-29T21:59:00Z", inside: true },
    { zone: "Europe/Berlin", period: ["sunday@00:00-24:00"], at: "2026-03-29T22:00:00Z", inside: false },
  ];
  for (const c of cases) {
    const zone = createNotifyZone(c.zone);
    const period = c.period.map(w);
    const at = utc(c.at);
    assert.equal(inPeriod(period, at, zone), c.inside, `${c.zone} ${c.period} ${c.at}`);
    if (c.opens !== undefined) {
      assert.equal(
        new Date(nextPeriodOpen(period, at, zone) ?? 0).toISOString(),
        new Date(utc(c.opens)).toISOString(),
        `${c.zone} ${c.period} ${c.at}`,
      );
    }
  }
});

test("the zone comes from the flag, else TZ; an unknown one is refused", () => {
  assert.equal(createNotifyZone("Asia/Tokyo").name, "Asia/Tokyo");
  const saved = process.env.TZ;
  process.env.TZ = "America/New_York";
  try {
    assert.equal(createNotifyZone("").name, "America/New_York");
  } finally {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  }
  assert.throws(() => createNotifyZone("Mars/Olympus"), TimeZoneError);
});

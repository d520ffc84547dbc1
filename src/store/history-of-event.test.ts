import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LookoutEvent } from "../model/events.js";
import { createFold } from "./fold.js";
import { HISTORY_KINDS, historyRecordOf } from "./history-of-event.js";

const o = { at: 1_700_000_000_000, key: "web!http", host: "web", service: "http" } as const;
const h = { at: 1_700_000_000_500, key: "web", host: "web" } as const;

/** One event of every type, each as the engine, the notifier or a sink would log it. */
const EVENTS: readonly LookoutEvent[] = [
  {
    ...o,
    type: "StateChange",
    from: "OK",
    to: "CRITICAL",
    stateType: "SOFT",
    attempt: 1,
    maxAttempts: 3,
    hardChange: false,
    fromHardState: "OK",
    reachable: true,
    output: "down",
  },
  {
    ...h,
    type: "StateChange",
    from: "UP",
    to: "DOWN",
    stateType: "HARD",
    attempt: 1,
    maxAttempts: 1,
    hardChange: true,
    fromHardState: "UP",
    reachable: true,
    output: "gone",
  },
  { ...o, type: "FlappingStart", percent: 55, highThreshold: 50 },
  { ...o, type: "FlappingStop", percent: 5, lowThreshold: 25, reason: "threshold", notifyProblem: false },
  {
    ...o,
    type: "AcknowledgementSet",
    state: "CRITICAL",
    author: "ops",
    comment: "looking",
    sticky: false,
    notify: true,
    setAt: o.at,
  },
  { ...o, type: "AcknowledgementRemoved", reason: "recovery" },
  {
    ...o,
    type: "DowntimeScheduled",
    id: "d1",
    start: o.at,
    end: o.at + 60_000,
    author: "ops",
    comment: "maint",
  },
  { ...o, type: "DowntimeStarted", id: "d1", end: o.at + 60_000 },
  { ...o, type: "DowntimeEnded", id: "d1" },
  { ...o, type: "DowntimeExpired", id: "d2" },
  { ...o, type: "DowntimeDeleted", id: "d3", reason: "command", wasActive: false },
  { ...o, type: "CommentAdded", id: "c1", author: "ops", comment: "note" },
  { ...o, type: "CommentDeleted", id: "c1", reason: "command" },
  { ...o, type: "CustomNotification", author: "ops", comment: "hey", force: true },
  {
    ...o,
    type: "ObjectFlagsChanged",
    author: "ops",
    flags: { activeChecks: false, passiveChecks: true, notifications: false, flapDetection: true },
  },
  {
    ...o,
    type: "ObjectFlagsChanged",
    author: "ops",
    flags: { activeChecks: true, passiveChecks: true, notifications: true, flapDetection: true },
  },
  { ...o, type: "CheckRescheduled", runAt: o.at + 5_000, force: true, author: "ops" },
  { type: "CommandRejected", at: o.at, command: "AcknowledgeProblem", key: "web!http", reason: "no problem" },
  { type: "CommandRejected", at: o.at, command: "ProcessCheckResult", reason: "no object" },
  { ...o, type: "NotificationSent", kind: "PROBLEM", policy: "p", level: 0, contact: "oncall" },
  {
    ...o,
    type: "NotificationFailed",
    kind: "PROBLEM",
    policy: "p",
    level: 0,
    contact: "oncall",
    error: "500",
    retryable: true,
  },
  { ...o, type: "NotificationSuppressed", kind: "PROBLEM", policy: "p", level: 0, reason: "downtime" },
  {
    ...o,
    type: "NotificationSuppressed",
    kind: "RECOVERY",
    policy: "p",
    level: 0,
    reason: "superseded",
    contact: "oncall",
  },
  { ...o, type: "ObjectAdded" },
  { ...o, type: "ObjectRemoved" },
  { type: "ConfigApplied", at: o.at, digest: "x", hosts: 1, services: 1, added: 0, removed: 0 },
  { type: "SinkFailed", at: o.at, sink: "s", error: "e", retryable: true },
  { type: "SinkFlushed", at: o.at, sink: "s", cursor: 1, count: 1 },
];

describe("historyRecordOf", () => {
  it("makes of every event the entry the fold makes for the projection's feed", () => {
    EVENTS.forEach((e, i) => {
      const fold = createFold();
      fold.apply(e, i + 1);
      const folded = fold.take()?.history ?? [];
      const made = historyRecordOf(e, i + 1);
      assert.deepEqual(made === undefined ? [] : [made], folded, e.type);
    });
  });

  it("covers every kind it names, and only those make entries", () => {
    const made = new Set(EVENTS.flatMap((e, i) => historyRecordOf(e, i)?.kind ?? []));
    assert.deepEqual([...made].sort(), [...HISTORY_KINDS].sort());
  });
});

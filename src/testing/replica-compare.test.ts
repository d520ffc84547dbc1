import assert from "node:assert/strict";
import { test } from "node:test";
import { compareReplicas, type Json, type ReplicaState } from "./replica-compare.js";

const status = (host: string, service: string | undefined, more: Record<string, Json> = {}): Json => ({
  host,
  ...(service === undefined ? {} : { service }),
  state: "STATE_OK",
  output: "OK",
  acknowledgement: null,
  ...more,
});
const state = (o: Partial<ReplicaState>): ReplicaState => ({
  status: [],
  history: [],
  downtimes: [],
  comments: [],
  ...o,
});

test("compareReplicas: equal up to order, else the first difference with its field path", () => {
  const base = state({
    status: [status("a", undefined), status("a", "web"), status("b", "db")],
    history: [
      { sequence: "12", kind: "StateChange", output: "x" },
      { sequence: "9", kind: "StateChange", output: "y" },
    ],
    downtimes: [{ id: "d1", objects: [{ host: "a" }], comment: "patch" }],
    comments: [{ id: "c1", text: "hello" }],
  });
  const cases: [string, ReplicaState, string | undefined][] = [
    ["identical", base, undefined],
    [
      "the same elements in another order",
      state({ ...base, status: [...base.status].reverse(), history: [...base.history].reverse() }),
      undefined,
    ],
    [
      "a nested field",
      state({
        ...base,
        status: [
          status("a", undefined),
          status("a", "web", { acknowledgement: { author: "ops" } }),
          status("b", "db"),
        ],
      }),
      'status[a!web].acknowledgement: null ≠ {"author":"ops"} (L vs R)',
    ],
    [
      "an object missing on the replica",
      state({ ...base, status: [status("a", undefined), status("b", "db")] }),
      'status[a!web]: on L {"host":"a","service":"web","state":"STATE_OK","output":"OK","acknowledgement":null}, absent on R (L has 3, R 2)',
    ],
    [
      "a history entry only on the replica",
      state({
        ...base,
        history: [...base.history, { sequence: "100", kind: "AcknowledgementSet", output: "" }],
      }),
      'history[100]: absent on L, on R {"sequence":"100","kind":"AcknowledgementSet","output":""} (L has 2, R 3)',
    ],
    [
      "history compared in sequence order (9 before 12)",
      state({
        ...base,
        history: [
          { sequence: "12", kind: "StateChange", output: "changed" },
          { sequence: "9", kind: "StateChange", output: "also" },
        ],
      }),
      'history[9].output: "y" ≠ "also" (L vs R)',
    ],
    [
      "an array element",
      state({ ...base, downtimes: [{ id: "d1", objects: [{ host: "b" }], comment: "patch" }] }),
      'downtimes[d1].objects[0].host: "a" ≠ "b" (L vs R)',
    ],
    [
      "a comment's text",
      state({ ...base, comments: [{ id: "c1", text: "bye" }] }),
      'comments[c1].text: "hello" ≠ "bye" (L vs R)',
    ],
    [
      "a key listed twice",
      state({
        ...base,
        comments: [
          { id: "c1", text: "hello" },
          { id: "c1", text: "hello" },
        ],
      }),
      "comments: a key listed twice (L has 1, R 2) (L vs R)",
    ],
  ];
  for (const [name, replica, want] of cases)
    assert.equal(compareReplicas("L", base, "R", replica), want, name);
});

/**
 * The contract every check type passes, whatever it probes: a network socket, a child process, a
 * WebAssembly module. A check type's test calls `describeCheckContract` once with a fixture
 * factory; the suite then asserts the promises of the `Checker` seam (src/model/checker.ts):
 *
 * - the ok target gives status 0 and a one-line output;
 * - the failing target gives a non-OK status with an output that says why;
 * - `run` never rejects, even for malformed probes;
 * - an abort during a hanging run settles within `abortWithinMs` (default 1 s: far below the
 *   hanging target's own timeout, yet wide enough for a loaded CI machine) and leaves no open handles (sockets, child
 *   processes, timers) behind;
 * - 50 concurrent runs all settle;
 * - perfdata values are finite and labels printable.
 *
 * ```ts
 * describeCheckContract("tcp", async () => {
 *   const open = await startTcpListener();
 *   return {
 *     checker: createTcpChecker(),
 *     ok: checkTarget({ type: "tcp", address: open.address }),
 *     failing: checkTarget({ type: "tcp", address: "127.0.0.1:1" }),
 *     teardown: () => open.stop(),
 *   };
 * });
 * ```
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CheckOutcome } from "../model/check-result.js";
import type { Checker, CheckTarget } from "../model/checker.js";
import {
  type Config,
  DEFAULT_SCHEDULE,
  EMPTY_CONFIG,
  type HostConfig,
  type ProbeConfig,
  type ScheduleConfig,
} from "../model/config.js";

/** What a check type's test hands the contract suite. */
export interface ContractFixture<P extends ProbeConfig> {
  readonly checker: Checker<P>;
  /** A target whose run gives status 0. */
  readonly ok: CheckTarget<P>;
  /** A target whose run gives a non-OK status. */
  readonly failing: CheckTarget<P>;
  /** Checked against the failing target's output when given, e.g. /refused/. */
  readonly failingOutput?: RegExp;
  /**
   * Extra malformed targets; the suite also derives some from `ok` (each probe field missing,
   * empty, or of the wrong type). They must settle (the suite aborts them after 5 s) without
   * rejecting and with a well-formed outcome.
   */
  readonly malformed?: readonly CheckTarget<P>[];
  /** A target whose run does not finish for at least a few seconds, for the abort tests. */
  readonly hanging?: CheckTarget<P>;
  /** Stops the peers the factory started. */
  teardown(): Promise<void>;
}

/** Tuning for slow check types. */
export interface ContractOptions {
  /** How fast an aborted run must settle; default 100 ms. */
  readonly abortWithinMs?: number;
  /** How many runs of `ok` the concurrency test starts at once; default 50. */
  readonly concurrency?: number;
  /** Per-test timeout; default 20 s. */
  readonly timeoutMs?: number;
  /**
   * Skips the whole suite with this reason, for a peer this machine cannot run (say which
   * Debian package is missing); a skipped contract shows in the test report, it never passes.
   */
  readonly skip?: string;
}

/**
 * A `CheckTarget` for a probe, with the default schedule (overridable) on a host named
 * `contract-host` at 127.0.0.1, in an otherwise empty config.
 */
export function checkTarget<P extends ProbeConfig>(
  probe: P,
  schedule: Partial<ScheduleConfig> = {},
  config: Config = EMPTY_CONFIG,
): CheckTarget<P> {
  const check = { ...DEFAULT_SCHEDULE, ...schedule, ...probe } as P & ScheduleConfig;
  const host: HostConfig = {
    name: "contract-host",
    address: "127.0.0.1",
    parents: [],
    vars: {},
    check,
    services: new Map(),
    notification: "",
    zone: "default",
    labels: {},
  };
  return { probe: check, host, config };
}

/** Asserts what every outcome must satisfy: a known status, a one-line output, sane perfdata. */
export function assertWellFormed(o: CheckOutcome, context = ""): void {
  const where = context === "" ? "" : ` (${context})`;
  assert.ok([0, 1, 2, 3].includes(o.exitStatus), `exit status ${o.exitStatus}${where}`);
  assert.equal(typeof o.output, "string", `output is a string${where}`);
  assert.ok(o.output.trim().length > 0, `output is empty${where}`);
  assert.doesNotMatch(o.output, /[\r\n]/, `output has a line break: ${JSON.stringify(o.output)}${where}`);
  assert.doesNotMatch(o.output, /\|/, `output contains the perfdata separator: ${o.output}${where}`);
  assert.equal(typeof o.longOutput, "string", `longOutput is a string${where}`);
  assert.ok(Array.isArray(o.perfdata), `perfdata is an array${where}`);
  for (const p of o.perfdata) {
    assert.match(p.label, /^[\x20-\x7e]+$/, `perfdata label printable: ${JSON.stringify(p.label)}${where}`);
    assert.doesNotMatch(p.label, /['=]/, `perfdata label has ' or =: ${p.label}${where}`);
    assert.ok(Number.isFinite(p.value), `perfdata ${p.label} value finite: ${p.value}${where}`);
    assert.equal(typeof p.uom, "string");
    assert.doesNotMatch(p.uom, /[\s;=']|[0-9]/, `perfdata ${p.label} uom: ${p.uom}${where}`);
    assert.equal(typeof p.warn, "string");
    assert.equal(typeof p.crit, "string");
    if (p.min !== undefined) assert.ok(Number.isFinite(p.min), `perfdata ${p.label} min finite${where}`);
    if (p.max !== undefined) assert.ok(Number.isFinite(p.max), `perfdata ${p.label} max finite${where}`);
  }
}

/** Malformed variants of a working probe: each non-type field missing, empty, or a number. */
export function malformedVariants<P extends ProbeConfig>(ok: CheckTarget<P>): CheckTarget<P>[] {
  const out: CheckTarget<P>[] = [];
  const scheduleKeys = new Set(Object.keys(DEFAULT_SCHEDULE));
  const probe = ok.probe as unknown as Record<string, unknown>;
  for (const key of Object.keys(probe)) {
    if (key === "type" || scheduleKeys.has(key)) continue;
    for (const bad of [undefined, "", 12345, "\u0000bad value\n"]) {
      const copy = { ...probe, [key]: bad };
      if (bad === undefined) delete copy[key];
      out.push({ ...ok, probe: copy as unknown as P & ScheduleConfig });
    }
  }
  return out;
}

/**
 * The kinds and counts of handles and requests keeping the event loop alive (TCPSocketWrap,
 * ProcessWrap, Timeout, …), to compare before and after a run with `assertNoLeaks`.
 */
export function activeResources(): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) m.set(r, (m.get(r) ?? 0) + 1);
  return m;
}

function excess(baseline: Map<string, number>): string[] {
  const out: string[] = [];
  for (const [kind, n] of activeResources()) {
    const before = baseline.get(kind) ?? 0;
    if (n > before) out.push(`${kind} ${before} -> ${n}`);
  }
  return out;
}

/**
 * Waits until no kind of resource outnumbers `baseline` (closing a handle takes a turn of the event
 * loop); fails listing what is left open after `withinMs`.
 */
export async function assertNoLeaks(
  baseline: Map<string, number>,
  withinMs: number,
  what: string,
): Promise<void> {
  const deadline = performance.now() + withinMs;
  let left = excess(baseline);
  while (left.length > 0 && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
    left = excess(baseline);
  }
  assert.deepEqual(left, [], `${what}: resources left open`);
}

function timeoutReason(): DOMException {
  return new DOMException("check timed out", "TimeoutError");
}

/** Runs the shared contract for one check type. */
export function describeCheckContract<P extends ProbeConfig>(
  name: string,
  setup: () => Promise<ContractFixture<P>>,
  options: ContractOptions = {},
): void {
  const abortWithinMs = options.abortWithinMs ?? 1_000;
  const concurrency = options.concurrency ?? 50;
  const timeout = options.timeoutMs ?? 20_000;

  const skip = options.skip === undefined || options.skip === "" ? false : options.skip;
  describe(`check contract: ${name}`, { timeout, skip }, () => {
    let f: ContractFixture<P>;
    before(async () => {
      f = await setup();
    });
    after(async () => {
      await f?.teardown();
    });

    it("gives status 0 and a one-line output for the ok target", async () => {
      assert.equal(f.checker.type, f.ok.probe.type, "the checker serves the ok target's type");
      const o = await f.checker.run(f.ok, AbortSignal.timeout(10_000));
      assertWellFormed(o, "ok");
      assert.equal(o.exitStatus, 0, o.output);
    });

    it("gives a non-OK status with an explanation for the failing target", async () => {
      const o = await f.checker.run(f.failing, AbortSignal.timeout(10_000));
      assertWellFormed(o, "failing");
      assert.notEqual(o.exitStatus, 0, o.output);
      assert.ok(o.output.length >= 10, `output explains: ${o.output}`);
      if (f.failingOutput !== undefined) assert.match(o.output, f.failingOutput);
    });

    it("never rejects, even for malformed probes", async () => {
      const targets = [...malformedVariants(f.ok), ...(f.malformed ?? [])];
      assert.ok(targets.length > 0, "there is at least one malformed variant");
      for (const t of targets) {
        const label = JSON.stringify(t.probe);
        // Through a promise, so a synchronous throw is reported like a rejection.
        const o = await Promise.resolve()
          .then(() => f.checker.run(t, AbortSignal.timeout(5_000)))
          .catch((err: unknown) => assert.fail(`run rejected or threw for ${label}: ${String(err)}`));
        assertWellFormed(o, label);
      }
    });

    it("settles at once when the signal is already aborted", async () => {
      const ac = new AbortController();
      ac.abort(timeoutReason());
      const t0 = performance.now();
      const o = await f.checker.run(f.hanging ?? f.ok, ac.signal);
      assert.ok(performance.now() - t0 < abortWithinMs + 50, "settled promptly");
      assertWellFormed(o, "pre-aborted");
    });

    it(`settles within ${abortWithinMs} ms of an abort and leaves no open handles`, async (t) => {
      if (f.hanging === undefined) {
        t.skip("this check type has no hanging target");
        return;
      }
      for (const reason of [timeoutReason(), new Error("shutdown")]) {
        const baseline = activeResources();
        const ac = new AbortController();
        const run = f.checker.run(f.hanging, ac.signal);
        let settledEarly = false;
        void run.then(() => {
          settledEarly = true;
        });
        await new Promise((r) => setTimeout(r, 150));
        assert.equal(settledEarly, false, "the hanging target settled before the abort");
        const t0 = performance.now();
        ac.abort(reason);
        const o = await run;
        const took = performance.now() - t0;
        assert.ok(took <= abortWithinMs, `settled ${took.toFixed(1)} ms after the abort`);
        assertWellFormed(o, `aborted with ${reason.name}`);
        assert.notEqual(o.exitStatus, 0, o.output);
        await assertNoLeaks(baseline, 1_000, `after abort (${reason.name})`);
      }
    });

    it(`settles ${concurrency} concurrent runs`, async () => {
      const baseline = activeResources();
      const outcomes = await Promise.all(
        Array.from({ length: concurrency }, () => f.checker.run(f.ok, AbortSignal.timeout(timeout / 2))),
      );
      for (const o of outcomes) {
        assertWellFormed(o, "concurrent");
        assert.equal(o.exitStatus, 0, o.output);
      }
      await assertNoLeaks(baseline, 2_000, "after concurrent runs");
    });
  });
}

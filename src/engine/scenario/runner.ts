import { isDeepStrictEqual } from "node:util";
import type { Command, Target } from "../../model/commands.js";
import type { Config } from "../../model/config.js";
import type { EngineEvent } from "../../model/events.js";
import { disabledMaskOf, flagsOf, type ObjectSwitch } from "../../model/object-flags.js";
import type { ExitStatus } from "../../model/state.js";
import { FakeClock } from "../../testing/fake-clock.js";
import {
  type CompiledConfig,
  compileConfig,
  decodeCompiledConfig,
  encodeCompiledConfig,
  lookupObject,
} from "../compiled-config.js";
import { configDigest } from "../config-digest.js";
import { createEngine, type Engine, restoreEngine } from "../engine.js";
import { formatDuration } from "../format-duration.js";
import { buildConfig } from "./config-builder.js";
import { eventMatches, renderEvent } from "./render-event.js";
import { keyValue, objectKeyOf, objectWord, parseDuration, tokenize } from "./tokens.js";

/** The words a scenario names the run-time switches by. */
const SWITCH_WORDS: readonly (readonly [string, ObjectSwitch])[] = [
  ["active", "activeChecks"],
  ["passive", "passiveChecks"],
  ["notifications", "notifications"],
  ["flap", "flapDetection"],
];

/** Where scenarios start: 2026-01-01T00:00:00Z. Times in a scenario are offsets from it. */
export const SCENARIO_T0 = Date.UTC(2026, 0, 1);

/** A failed expectation (or a broken line), with its 1-based line number. */
export interface ScenarioFailure {
  readonly line: number;
  readonly message: string;
}

interface Logged {
  readonly line: number;
  readonly command: Command;
  readonly events: readonly EngineEvent[];
  /** The config in force before the command was applied. */
  readonly config: CompiledConfig;
}

const STATUS_WORDS: Readonly<Record<string, ExitStatus>> = {
  ok: 0,
  up: 0,
  warning: 1,
  critical: 2,
  down: 2,
  unknown: 3,
  "0": 0,
  "1": 1,
  "2": 2,
  "3": 3,
};

/**
 * A layer above the engine that a scenario can drive too (the notifier's tracker): it sees every
 * config and every step's events, fires its timers as time moves, and may add statements and
 * `expect` forms. The engine never imports it; the layer's own test passes it to runScenario.
 */
export interface ScenarioExtension {
  /** A statement other than `expect` starts (the extension's "last step" begins here). */
  begin(): void;
  /** A `config` block was applied. */
  config(config: Config): void;
  /** Time moves to `to` (ms since the epoch): fire what is due up to and including it. */
  advance(to: number): void;
  /** The engine applied a command at `at` and produced these events. */
  events(events: readonly EngineEvent[], at: number): void;
  /** A statement the runner does not know; false when it is not the extension's either. */
  statement(verb: string, args: readonly string[], at: number): boolean;
  /** An `expect` form: a failure message, undefined for a pass, null when it is not the extension's. */
  expect(what: string, args: readonly string[], negate: boolean): string | undefined | null;
}

/**
 * Runs a scenario file (docs/states.md, "Scenario files", has the language) and returns every failed
 * expectation. After the last line it also checks determinism: re-applying the logged commands to
 * a fresh engine, and to an engine restored from a JSON snapshot taken before each command, must
 * give the same events and the same final state.
 */
export function runScenario(text: string, extensions: readonly ScenarioExtension[] = []): ScenarioFailure[] {
  const failures: ScenarioFailure[] = [];
  const clock = new FakeClock(SCENARIO_T0);
  let engine: Engine = createEngine({ clock });
  let lastEvents: readonly EngineEvent[] = [];
  const log: Logged[] = [];
  const lines = text.split("\n");

  const exec = (line: number, command: Command): void => {
    const config = engine.config;
    const events = engine.apply(command);
    log.push({ line, command, events, config });
    lastEvents = events;
    if (command.type === "ApplyConfig") for (const x of extensions) x.config(command.config);
    for (const x of extensions) x.events(events, command.at);
  };
  const moveTo = (t: number, line: number): void => {
    const now = clock.now();
    if (t < now)
      throw new Error(`line ${line}: cannot go back in time to ${formatDuration(t - SCENARIO_T0)}`);
    for (const x of extensions) x.advance(t);
    clock.advance(t - now);
  };

  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = lines[i] as string;
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    try {
      let words = tokenize(trimmed);
      if (words[0] !== "expect") for (const x of extensions) x.begin();
      if (words[0] === "at") {
        moveTo(SCENARIO_T0 + parseDuration(need(words[1], "at needs a time")), lineNo);
        words = words.slice(2);
        if (words.length === 0) {
          exec(lineNo, { type: "Tick", at: clock.now() });
          continue;
        }
      }
      const [verb, ...args] = words;
      switch (verb) {
        case "config": {
          const block: { text: string[]; line: number }[] = [];
          while (i + 1 < lines.length && /^\s+\S/.test(lines[i + 1] as string)) {
            i++;
            const t = (lines[i] as string).trim();
            if (!t.startsWith("#")) block.push({ text: tokenize(t), line: i + 1 });
          }
          exec(lineNo, { type: "ApplyConfig", at: clock.now(), config: buildConfig(block) });
          break;
        }
        case "advance":
          moveTo(clock.now() + parseDuration(need(args[0], "advance needs a duration")), lineNo);
          exec(lineNo, { type: "Tick", at: clock.now() });
          break;
        case "tick":
          exec(lineNo, { type: "Tick", at: clock.now() });
          break;
        case "result":
          exec(lineNo, resultCommand(engine, args, clock.now()));
          break;
        case "ack": {
          const { target, rest } = targetOf(args);
          const kv = options(rest, ["sticky", "notify"]);
          exec(lineNo, {
            type: "AcknowledgeProblem",
            at: clock.now(),
            target,
            sticky: kv.has("sticky"),
            notify: kv.has("notify"),
            author: kv.get("author") ?? "ops",
            comment: kv.get("comment") ?? "",
          });
          break;
        }
        case "unack":
          exec(lineNo, { type: "RemoveAcknowledgement", at: clock.now(), target: targetOf(args).target });
          break;
        case "downtime": {
          const { target, rest } = targetOf(args);
          const kv = options(rest, ["flexible"]);
          const id = kv.get("id");
          const duration = kv.get("duration");
          exec(lineNo, {
            type: "ScheduleDowntime",
            at: clock.now(),
            target,
            start: SCENARIO_T0 + parseDuration(need(kv.get("from"), "downtime needs from=")),
            end: SCENARIO_T0 + parseDuration(need(kv.get("to"), "downtime needs to=")),
            author: kv.get("author") ?? "ops",
            comment: kv.get("comment") ?? "",
            ...(id === undefined ? {} : { id }),
            ...(kv.has("flexible") ? { flexible: true } : {}),
            ...(duration === undefined ? {} : { durationMs: parseDuration(duration) }),
          });
          break;
        }
        case "comment": {
          // `comment web/http "text" author=erin id=c1`
          const [obj, ...rest] = args;
          const key = objectKeyOf(need(obj, "comment needs an object"));
          const [host, service] = key.split("!") as [string, string | undefined];
          let text = "";
          const kv = new Map<string, string>();
          for (const w of rest) {
            const p = keyValue(w);
            if (p === undefined) text = w;
            else kv.set(p[0], p[1]);
          }
          const id = kv.get("id");
          exec(lineNo, {
            type: "AddComment",
            at: clock.now(),
            object: service === undefined ? { host } : { host, service },
            author: kv.get("author") ?? "ops",
            comment: text,
            ...(id === undefined ? {} : { id }),
          });
          break;
        }
        case "delete-comment":
          exec(lineNo, {
            type: "DeleteComment",
            at: clock.now(),
            id: need(args[0], "delete-comment needs an id"),
          });
          break;
        case "custom": {
          // `custom web/http force author=alice comment=...`: SendCustomNotification.
          const { target, rest } = targetOf(args);
          const kv = options(rest, ["force"]);
          exec(lineNo, {
            type: "SendCustomNotification",
            at: clock.now(),
            target,
            author: kv.get("author") ?? "ops",
            comment: kv.get("comment") ?? "",
            force: kv.has("force"),
          });
          break;
        }
        case "flags": {
          // `flags web/http active=off notifications=on author=ops`
          const { target, rest } = targetOf(args);
          const kv = options(rest, []);
          const flags: { -readonly [S in ObjectSwitch]?: boolean } = {};
          for (const [word, name] of SWITCH_WORDS) {
            const v = kv.get(word);
            if (v === undefined) continue;
            if (v !== "on" && v !== "off") throw new Error(`${word}= takes on or off, not "${v}"`);
            flags[name] = v === "on";
          }
          exec(lineNo, {
            type: "SetObjectFlags",
            at: clock.now(),
            target,
            flags,
            author: kv.get("author") ?? "ops",
          });
          break;
        }
        case "delete-downtime":
          exec(lineNo, {
            type: "DeleteDowntime",
            at: clock.now(),
            id: need(args[0], "delete-downtime needs an id"),
          });
          break;
        case "reschedule": {
          // `reschedule web/http [at=30s] [force] [author=ops]`
          const { target, rest } = targetOf(args);
          const kv = options(rest, ["force"]);
          const runAt = kv.get("at");
          exec(lineNo, {
            type: "RescheduleCheck",
            at: clock.now(),
            target,
            force: kv.has("force"),
            author: kv.get("author") ?? "ops",
            ...(runAt === undefined ? {} : { runAt: SCENARIO_T0 + parseDuration(runAt) }),
          });
          break;
        }
        case "restart": {
          // What the writer does after a crash: a JSON snapshot, restored with the config in force.
          const snap = JSON.parse(JSON.stringify(engine.snapshot()));
          engine = restoreEngine(snap, engine.config, { clock });
          for (const x of extensions) x.statement("restart", [], clock.now());
          break;
        }
        case "expect": {
          const msg = expect(engine, args, lastEvents, extensions);
          if (msg !== undefined) failures.push({ line: lineNo, message: msg });
          break;
        }
        default:
          if (!extensions.some((x) => x.statement(verb as string, args, clock.now())))
            throw new Error(`unknown statement "${verb}"`);
      }
    } catch (e) {
      failures.push({ line: lineNo, message: e instanceof Error ? e.message : String(e) });
    }
  }
  failures.push(...checkDeterminism(log, engine));
  return failures;
}

function need<T>(v: T | undefined, msg: string): T {
  if (v === undefined) throw new Error(msg);
  return v;
}

/** Bare words from `flags` and key=value words, as a map (flags map to ""). */
function options(words: readonly string[], flags: readonly string[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const w of words) {
    if (flags.includes(w)) {
      m.set(w, "");
      continue;
    }
    const kv = keyValue(w);
    if (kv === undefined) throw new Error(`unexpected "${w}"`);
    m.set(kv[0], kv[1]);
  }
  return m;
}

/** `web/http`, `web`, or `selector="team=web"`. */
function targetOf(args: readonly string[]): { target: Target; rest: string[] } {
  const [first, ...rest] = args;
  if (first === undefined) throw new Error("missing target");
  if (first.startsWith("selector=")) return { target: { selector: first.slice(9) }, rest };
  const [host, service] = first.split("/") as [string, string | undefined];
  return { target: { object: service === undefined ? { host } : { host, service } }, rest };
}

/** `result web/http critical "connection refused" long="..." checked=30s`. */
function resultCommand(engine: Engine, args: readonly string[], at: number): Command {
  const [obj, status, ...rest] = args;
  const key = objectKeyOf(need(obj, "result needs an object"));
  const exitStatus = STATUS_WORDS[need(status, "result needs a status").toLowerCase()];
  if (exitStatus === undefined) throw new Error(`bad status "${status}"`);
  let output = `${(status as string).toUpperCase()}`;
  let longOutput = "";
  let checkedAt = at;
  let source: "active" | "passive" | undefined;
  for (const w of rest) {
    const kv = keyValue(w);
    if (kv?.[0] === "source") {
      if (kv[1] !== "active" && kv[1] !== "passive") throw new Error(`source= takes active or passive`);
      source = kv[1];
    } else if (kv?.[0] === "long") longOutput = kv[1];
    else if (kv?.[0] === "checked") checkedAt = SCENARIO_T0 + parseDuration(kv[1]);
    else output = w;
  }
  const [host, service] = key.split("!") as [string, string | undefined];
  const c = engine.config;
  const i = lookupObject(c, host, service);
  const check = i === undefined ? undefined : c.checks[c.checkOf[i] as number];
  return {
    type: "ProcessCheckResult",
    at,
    result: {
      host,
      ...(service === undefined ? {} : { service }),
      checkedAt,
      durationMs: 0,
      source: source ?? (check?.type === "passive" ? "passive" : "active"),
      exitStatus,
      output,
      longOutput,
      perfdata: [],
    },
  };
}

/** Evaluates one `expect` line; returns a failure message or undefined. */
function expect(
  engine: Engine,
  args: readonly string[],
  lastEvents: readonly EngineEvent[],
  extensions: readonly ScenarioExtension[],
): string | undefined {
  const rendered = () => lastEvents.map((e) => renderEvent(e, SCENARIO_T0));
  const show = () =>
    `events of the last step:\n${
      rendered()
        .map((w) => `    ${w.join(" ")}`)
        .join("\n") || "    (none)"
    }`;
  let negate = false;
  let a = [...args];
  if (a[0] === "not" || a[0] === "no") {
    negate = true;
    a = a.slice(1);
  }
  const [what, ...rest] = a;
  for (const x of extensions) {
    const r = x.expect(what as string, rest, negate);
    if (r !== null) return r;
  }
  const statusOf = (word: string | undefined) => {
    const key = objectKeyOf(need(word, `expect ${what} needs an object`));
    return need(engine.status(key), `no object ${word}`);
  };
  const check = (ok: boolean, msg: string): string | undefined =>
    ok !== negate ? undefined : negate ? `not: ${msg}` : msg;
  switch (what) {
    case "event": {
      const hit = rendered().some((w) => eventMatches(w, rest));
      return check(hit, `no event matches "${rest.join(" ")}"; ${show()}`);
    }
    case "events": {
      // `expect events 3`: how many events the last step produced.
      const n = Number(rest[0]);
      return check(lastEvents.length === n, `want ${n} events, got ${lastEvents.length}; ${show()}`);
    }
    case "flapping": {
      const s = statusOf(rest[0]);
      return check(s.flapping, `${rest[0]} flapping=${s.flapping} (f=${s.flapPercent.toFixed(2)}%)`);
    }
    case "flap": {
      const s = statusOf(rest[0]);
      const want = Number(need(rest[1], "expect flap needs a percentage"));
      return check(
        Math.abs(s.flapPercent - want) < 0.01,
        `${rest[0]} flap ${s.flapPercent.toFixed(2)}%, want ${want}%`,
      );
    }
    case "acknowledged": {
      const s = statusOf(rest[0]);
      const ack = s.acknowledgement;
      const ok = ack !== null && (rest[1] !== "sticky" || ack.sticky);
      return check(ok, `${rest[0]} acknowledgement ${JSON.stringify(ack)}`);
    }
    case "switched-off": {
      // `expect switched-off web/http notifications`: the switch is off.
      const s = statusOf(rest[0]);
      const word = need(rest[1], "expect switched-off <object> active|passive|notifications|flap");
      const name = SWITCH_WORDS.find(([w]) => w === word)?.[1];
      if (name === undefined) throw new Error(`unknown switch "${word}"`);
      const off = !flagsOf(disabledMaskOf(s))[name];
      return check(off, `${rest[0]} ${word} is ${off ? "off" : "on"}`);
    }
    case "in-downtime": {
      const s = statusOf(rest[0]);
      return check(s.inDowntime, `${rest[0]} inDowntime=${s.inDowntime}`);
    }
    case "reachable": {
      const s = statusOf(rest[0]);
      return check(s.reachable, `${rest[0]} reachable=${s.reachable}`);
    }
    case "downtime": {
      const d = engine.downtime(need(rest[0], "expect downtime needs an id"));
      const got = d === undefined ? "gone" : d.active ? "active" : "scheduled";
      const want = need(rest[1], "expect downtime <id> scheduled|active|gone");
      return check(got === want, `downtime ${rest[0]} is ${got}, want ${want}`);
    }
    case "comment": {
      // `expect comment c1 web/http`, `expect comment c1 gone`
      const id = need(rest[0], "expect comment needs an id");
      const c = engine.comments().find((x) => x.id === id);
      const got = c === undefined ? "gone" : objectWord(c.key);
      const want = need(rest[1], "expect comment <id> <object>|gone");
      return check(got === want, `comment ${id} is ${got}, want ${want}`);
    }
    case "object": {
      const key = objectKeyOf(need(rest[0], "expect object needs an object"));
      return check(engine.status(key) !== undefined, `${rest[0]} is not configured`);
    }
    case "wakeup": {
      const w = engine.nextWakeup();
      const got = w === undefined ? "none" : formatDuration(w - SCENARIO_T0);
      const want = need(rest[0], "expect wakeup <time>|none");
      const wantNorm = want === "none" ? "none" : formatDuration(parseDuration(want));
      return check(got === wantNorm, `next wakeup ${got}, want ${wantNorm}`);
    }
    case "last-check":
    case "last-state-change":
    case "last-hard-state-change": {
      const s = statusOf(rest[0]);
      const t =
        what === "last-check"
          ? s.lastCheck
          : what === "last-state-change"
            ? s.lastStateChange
            : s.lastHardStateChange;
      const got = t === 0 ? "never" : formatDuration(t - SCENARIO_T0);
      const want = need(rest[1], `expect ${what} <object> <time>|never`);
      const wantNorm = want === "never" ? "never" : formatDuration(parseDuration(want));
      return check(got === wantNorm, `${rest[0]} ${what} ${got}, want ${wantNorm}`);
    }
    default: {
      // `expect web/http CRITICAL SOFT 1/3`
      const s = statusOf(what);
      const got = [s.state, s.stateType, `${s.attempt}/${s.maxAttempts}`];
      const ok = rest.every((w) => got.includes(w));
      return check(
        ok,
        `${objectWord(objectKeyOf(what as string))} is ${got.join(" ")}, want ${rest.join(" ")}`,
      );
    }
  }
}

/**
 * What the store's writer runs with for a config: its compiled form after a structured clone (the
 * way to the writer's thread) and a round trip through the JSON the writer logs.
 */
function asLogged(config: Config): CompiledConfig {
  return decodeCompiledConfig(encodeCompiledConfig(structuredClone(compileConfig(config))));
}

/**
 * Re-applies the log to a fresh engine, and from a JSON snapshot taken before every command, and
 * reports the first command whose events differ, or a final state that differs. Also re-applies it
 * with every config as the store's writer gets it (compiled, cloned and read back from its log).
 */
function checkDeterminism(log: readonly Logged[], live: Engine): ScenarioFailure[] {
  const want = JSON.stringify(live.snapshot());
  const lean = createEngine();
  for (const l of log) {
    const c = l.command;
    const events =
      c.type === "ApplyConfig"
        ? lean.applyCompiled(asLogged(c.config), c.at, c.digest ?? configDigest(c.config))
        : lean.apply(c);
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(events)), JSON.parse(JSON.stringify(l.events)))) {
      return [
        { line: l.line, message: "the engine gave other events with the config as the writer logs it" },
      ];
    }
  }
  if (JSON.stringify(lean.snapshot()) !== want) {
    return [
      {
        line: log[log.length - 1]?.line ?? 0,
        message: "with the config as the writer logs it the engine ends in another state",
      },
    ];
  }
  for (let k = 0; k < log.length; k++) {
    const first = createEngine();
    for (let j = 0; j < k; j++) first.apply((log[j] as Logged).command);
    const snap = JSON.parse(JSON.stringify(first.snapshot()));
    const engine = k === 0 ? first : restoreEngine(snap, (log[k] as Logged).config);
    for (let j = k; j < log.length; j++) {
      const l = log[j] as Logged;
      const events = engine.apply(l.command);
      if (!isDeepStrictEqual(JSON.parse(JSON.stringify(events)), JSON.parse(JSON.stringify(l.events)))) {
        return [
          {
            line: l.line,
            message: `replay from a snapshot taken before line ${(log[k] as Logged).line} gave other events`,
          },
        ];
      }
    }
    if (JSON.stringify(engine.snapshot()) !== want) {
      return [
        { line: (log[k] as Logged).line, message: "replay from a snapshot taken here ends in another state" },
      ];
    }
  }
  return [];
}

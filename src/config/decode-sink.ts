import type { SinkConfig } from "../model/config.js";
import type { Obj, Reader } from "./decode-reader.js";
import type { Path } from "./path-step.js";
import { step } from "./path-step.js";
import { unknownTypeMessage } from "./type-checks.js";

const DEFAULT_BYTES = 67_108_864;

/** Decodes one `#Sink` named `name` (common fields plus its type's fields). */
export function decodeSink(r: Reader, name: string, o: Obj, path: Path): SinkConfig {
  const inputText = r.str(o.input, path, "input", "metrics");
  if (inputText !== "metrics" && inputText !== "events") {
    r.report(step(path, "input"), `input must be "metrics" or "events", found ${JSON.stringify(inputText)}`);
  }
  const input = inputText === "events" ? "events" : "metrics";
  const common = {
    name,
    input,
    selector: r.str(o.selector, path, "selector"),
    batchSize: r.int(o.batch_size, path, "batch_size", 1000),
    flushIntervalMs: r.durationMs(o.flush_interval, path, "flush_interval", "5s"),
  } as const;
  const type = r.str(o.type, path, "type") as SinkConfig["type"];
  switch (type) {
    case "clickhouse":
      return Object.freeze({
        ...common,
        type,
        url: r.required(o.url, path, "url"),
        table: r.str(o.table, path, "table", "perfdata"),
      });
    case "remote_write":
      return Object.freeze({
        ...common,
        type,
        url: r.required(o.url, path, "url"),
        cursor: r.str(o.cursor, path, "cursor"),
      });
    case "archive":
      if (o.input === undefined) return decodeSink(r, name, { ...o, input: "events" }, path);
      if (input !== "events") r.report(step(path, "input"), `an archive sink's input is always "events"`);
      return Object.freeze({
        ...common,
        input: "events",
        type,
        url: r.required(o.url, path, "url"),
        segmentBytes: r.int(o.segment_bytes, path, "segment_bytes", DEFAULT_BYTES),
      });
    case "http":
    case "otlp":
      return Object.freeze({
        ...common,
        type,
        url: r.required(o.url, path, "url"),
        headers: r.strMap(o.headers, path, "headers"),
        cursor: r.str(o.cursor, path, "cursor"),
      });
    case "exec": {
      const command = r.strList(o.command, path, "command");
      if (o.command === undefined) r.report(step(path, "command"), `missing required field "command"`);
      else if (command.length === 0)
        r.report(step(path, "command"), "an exec sink's command needs at least the program");
      return Object.freeze({ ...common, type, command, cursor: r.str(o.cursor, path, "cursor") });
    }
    case "file":
      return Object.freeze({
        ...common,
        type,
        path: r.required(o.path, path, "path"),
        rotateBytes: r.int(o.rotate_bytes, path, "rotate_bytes", DEFAULT_BYTES),
        cursor: r.str(o.cursor, path, "cursor"),
      });
    default: {
      const _never: never = type;
      r.report(
        step(path, "type"),
        unknownTypeMessage("sink", o.type === undefined ? undefined : String(_never), undefined),
      );
      return Object.freeze({ ...common, type: "remote_write", url: "", cursor: "" });
    }
  }
}

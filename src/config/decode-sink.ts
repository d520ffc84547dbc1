import type { SinkConfig } from "../model/config.js";
import type { Obj, Reader } from "./decode-reader.js";
import type { Path } from "./path-step.js";
import { step } from "./path-step.js";
import { unknownTypeMessage } from "./type-checks.js";

const DEFAULT_BYTES = 67_108_864;

/** Decodes one `#Sink` named `name` (common fields plus its type's fields). */
export function decodeSink(r: Reader, name: string, o: Obj, path: Path): SinkConfig {
  const inputText = r.str(o, "input", path, "metrics");
  if (inputText !== "metrics" && inputText !== "events") {
    r.report(step(path, "input"), `input must be "metrics" or "events", found ${JSON.stringify(inputText)}`);
  }
  const input = inputText === "events" ? "events" : "metrics";
  const common = {
    name,
    input,
    selector: r.str(o, "selector", path),
    batchSize: r.int(o, "batch_size", path, 1000),
    flushIntervalMs: r.durationMs(o, "flush_interval", path, "5s"),
  } as const;
  const type = r.str(o, "type", path) as SinkConfig["type"];
  switch (type) {
    case "clickhouse":
      return Object.freeze({
        ...common,
        type,
        url: r.required(o, "url", path),
        table: r.str(o, "table", path, "perfdata"),
      });
    case "remote_write":
      return Object.freeze({
        ...common,
        type,
        url: r.required(o, "url", path),
        cursor: r.str(o, "cursor", path),
      });
    case "archive":
      if (o.input === undefined) return decodeSink(r, name, { ...o, input: "events" }, path);
      if (input !== "events") r.report(step(path, "input"), `an archive sink's input is always "events"`);
      return Object.freeze({
        ...common,
        input: "events",
        type,
        url: r.required(o, "url", path),
        segmentBytes: r.int(o, "segment_bytes", path, DEFAULT_BYTES),
      });
    case "http":
    case "otlp":
      return Object.freeze({
        ...common,
        type,
        url: r.required(o, "url", path),
        headers: r.strMap(o, "headers", path),
        cursor: r.str(o, "cursor", path),
      });
    case "exec": {
      const command = r.strList(o, "command", path);
      if (o.command === undefined) r.report(step(path, "command"), `missing required field "command"`);
      else if (command.length === 0)
        r.report(step(path, "command"), "an exec sink's command needs at least the program");
      return Object.freeze({ ...common, type, command, cursor: r.str(o, "cursor", path) });
    }
    case "file":
      return Object.freeze({
        ...common,
        type,
        path: r.required(o, "path", path),
        rotateBytes: r.int(o, "rotate_bytes", path, DEFAULT_BYTES),
        cursor: r.str(o, "cursor", path),
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

import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import type { PartlyRefused } from "../sink.js";

/**
 * The `partial_success` of an OTLP export answer (ExportMetricsServiceResponse and
 * ExportLogsServiceResponse have the same shape: field 1, with the number of points or log records
 * rejected in field 1 and a message in field 2), when it rejected any; undefined for an empty or
 * unreadable answer. A receiver that kept part of a batch answers 200 with it, and the records it
 * rejected would otherwise be lost without a word.
 */
export function partialSuccess(body: Uint8Array): PartlyRefused | undefined {
  if (body.length === 0) return undefined;
  try {
    const r = new BinaryReader(body);
    let found: PartlyRefused | undefined;
    while (r.pos < r.len) {
      const [field, wire] = r.tag();
      if (field !== 1 || wire !== WireType.LengthDelimited) {
        r.skip(wire);
        continue;
      }
      const inner = new BinaryReader(r.bytes());
      let count = 0;
      let error = "";
      while (inner.pos < inner.len) {
        const [f, w] = inner.tag();
        if (f === 1 && w === WireType.Varint) count = Number(inner.int64());
        else if (f === 2 && w === WireType.LengthDelimited) error = inner.string();
        else inner.skip(w);
      }
      if (count > 0) found = { count, error: error.slice(0, 200) };
    }
    return found;
  } catch {
    return undefined;
  }
}

import { deflateRawSync } from "node:zlib";

/**
 * A body (JSON text, or its UTF-8 bytes) as the event log stores it: deflate-raw at level 1. Apart
 * from src/store/event-log.ts so that a thread that packs bodies for it (the writer's decoding
 * thread) does not load SQLite.
 */
export function packLogBody(body: string | Uint8Array): Buffer {
  return deflateRawSync(body, { level: 1 });
}

import { createHash } from "node:crypto";
import { type FileHandle, mkdir, open, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { Clock } from "../../model/clock.js";
import { truncateTornTail } from "../file/file-sink.js";
import { endpoint, postBytes } from "../http-post.js";
import { recordJson } from "../ndjson.js";
import type { SendOutcome, Sink } from "../sink.js";
import { segmentName } from "./segment-name.js";

const gzipAsync = promisify(gzip);

/** A segment is closed at `segment_bytes`, or once its oldest event was staged this long ago. */
export const SEGMENT_MAX_AGE_MS = 3_600_000;

/** Where closed segments go: a local directory (file://) or an HTTP(S) endpoint taking PUT. */
interface Store {
  put(name: string, body: Buffer, signal: AbortSignal): Promise<SendOutcome>;
}

function fileStore(dir: string): Store {
  return {
    async put(name, body) {
      try {
        await mkdir(dir, { recursive: true });
        const tmp = join(dir, `.${name}.tmp`);
        const fh = await open(tmp, "w", 0o640);
        try {
          await fh.writeFile(body);
          await fh.sync();
        } finally {
          await fh.close();
        }
        await rename(tmp, join(dir, name));
        const d = await open(dir, "r");
        try {
          await d.sync();
        } finally {
          await d.close();
        }
        return { kind: "delivered" };
      } catch (e) {
        return { kind: "retry", error: `${dir}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` };
      }
    },
  };
}

function httpStore(url: string): Store {
  const base = url.endsWith("/") ? url : `${url}/`;
  return {
    put(name, body, signal) {
      const ep = endpoint(new URL(name, base).toString());
      return postBytes(
        ep,
        body,
        {
          "Content-Type": "application/x-ndjson",
          "Content-Encoding": "identity",
          "Content-MD5": createHash("md5").update(body).digest("base64"),
        },
        signal,
        { method: "PUT", timeoutMs: 120_000 },
      );
    },
  };
}

/** The first and last `"seq":N` of the staged lines (every line starts with it). */
function seqOf(line: string): number {
  const m = /^\{"seq":(\d+)/.exec(line);
  return m === null ? 0 : Number(m[1]);
}

/**
 * The `archive` sink: the log's events in gzip-compressed NDJSON segments of about `segmentBytes`
 * (uncompressed), each named `<first seq>-<last seq>.ndjson.gz`, written to a directory (`file://`)
 * or PUT to an HTTP(S) endpoint (WebDAV, S3-compatible presigned bases, nginx `dav_methods PUT`).
 *
 * A segment is built in a staging file under the data dir (`stagingPath`), appended and fsynced per
 * batch: a batch counts as delivered once staged, so the log's position moves on and the staging
 * file, not memory, holds the open segment. When it reaches `segmentBytes` (or its oldest event is
 * an hour old) it is compressed and stored; only after the store acknowledges is the staging file
 * emptied, and only then is the batch that filled it delivered. While the store is down nothing is
 * staged beyond the full segment: the runner retries, the log holds the rest. Records already staged
 * or stored are not staged twice (a retried batch skips the seqs up to the last one staged).
 */
export function createArchiveSink(o: {
  url: string;
  segmentBytes: number;
  stagingPath: string;
  clock: Clock;
}): Sink {
  const u = new URL(o.url);
  const store = u.protocol === "file:" ? fileStore(fileURLToPath(u)) : httpStore(o.url);
  let fh: FileHandle | undefined;
  let size = 0;
  let firstSeq = 0;
  let lastSeq = 0;
  let openedAt = 0;

  const openStaging = async (): Promise<FileHandle> => {
    if (fh !== undefined) return fh;
    await mkdir(join(o.stagingPath, ".."), { recursive: true });
    const h = await open(o.stagingPath, "a+", 0o640);
    size = await truncateTornTail(h);
    if (size > 0) {
      const text = (await readFile(o.stagingPath, "utf8")).split("\n");
      firstSeq = seqOf(text[0] ?? "");
      lastSeq = seqOf(text[text.length - 2] ?? "");
      openedAt = o.clock.now();
    }
    fh = h;
    return h;
  };

  const closeSegment = async (signal: AbortSignal): Promise<SendOutcome> => {
    const h = await openStaging();
    const body = await gzipAsync(await readFile(o.stagingPath));
    const r = await store.put(segmentName(firstSeq, lastSeq), body, signal);
    if (r.kind !== "delivered") return r.kind === "rejected" ? { kind: "retry", error: r.error } : r;
    await h.truncate(0);
    await h.sync();
    size = 0;
    firstSeq = 0;
    // lastSeq stays: a batch retried after its segment was stored is not archived twice.
    return r;
  };

  return {
    async send(batch, signal) {
      try {
        const h = await openStaging();
        // A full segment the store refused so far goes first; nothing more is staged meanwhile.
        if (size >= o.segmentBytes) {
          const r = await closeSegment(signal);
          if (r.kind !== "delivered") return r;
        }
        let text = "";
        let first = 0;
        for (const r of batch.records) {
          if (r.kind !== "event" || r.seq <= lastSeq) continue;
          if (first === 0) first = r.seq;
          text += `${recordJson(r)}\n`;
          lastSeq = r.seq;
        }
        if (text !== "") {
          const bytes = Buffer.from(text);
          await h.write(bytes);
          await h.sync();
          if (size === 0) {
            firstSeq = first;
            openedAt = o.clock.now();
          }
          size += bytes.length;
        }
        if (size > 0 && (size >= o.segmentBytes || o.clock.now() - openedAt >= SEGMENT_MAX_AGE_MS)) {
          // Staged already: the retry of this batch stores the segment and skips the staged records.
          const r = await closeSegment(signal);
          if (r.kind !== "delivered") return r;
        }
        return { kind: "delivered" };
      } catch (e) {
        const h = fh;
        fh = undefined;
        await h?.close().catch(() => {});
        return { kind: "retry", error: `archive staging: ${(e as NodeJS.ErrnoException).code ?? String(e)}` };
      }
    },
    async close() {
      const h = fh;
      fh = undefined;
      await h?.close();
    },
  };
}

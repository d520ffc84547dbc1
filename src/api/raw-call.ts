import http2 from "node:http2";

/**
 * One API call made byte by byte, and what a client sees of the answer: for tests that compare a
 * fast path's answers with the Connect router's (src/api/unary-fast-path.ts).
 */
export interface Answer {
  readonly status: number;
  /** The headers a client acts on (content type, encodings, gRPC status); not dates. */
  readonly headers: Record<string, string | undefined>;
  /** The body, base64. */
  readonly body: string;
  readonly trailers: Record<string, string | undefined>;
}

const SHOWN = ["content-type", "content-encoding", "grpc-encoding", "grpc-status", "grpc-message"];
const pick = (h: Record<string, unknown>): Record<string, string | undefined> =>
  Object.fromEntries(SHOWN.filter((k) => h[k] !== undefined).map((k) => [k, String(h[k])]));

/** POSTs over HTTP/1.1 (fetch). */
export async function h1(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array,
): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", headers, body });
  const h: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    h[k] = v;
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: pick(h), body: bytes.toString("base64"), trailers: {} };
}

/** POSTs over HTTP/2 with prior knowledge (what gRPC clients do), trailers included. */
export function h2(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on("error", reject);
    const req = session.request({ ":method": "POST", ":path": path, te: "trailers", ...headers });
    let head: Record<string, unknown> = {};
    let trailers: Record<string, unknown> = {};
    const chunks: Buffer[] = [];
    req.on("response", (h) => {
      head = h;
    });
    req.on("trailers", (t) => {
      trailers = t;
    });
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      session.close();
      resolve({
        status: Number(head[":status"]),
        headers: pick(head),
        body: Buffer.concat(chunks).toString("base64"),
        trailers: pick(trailers),
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A gRPC length-prefixed message: flags, a declared length (the real one unless given), the bytes. */
export function frame(payload: Uint8Array, flags = 0, declared = payload.length): Uint8Array {
  const out = new Uint8Array(5 + payload.length);
  out[0] = flags;
  new DataView(out.buffer).setUint32(1, declared);
  out.set(payload, 5);
  return out;
}

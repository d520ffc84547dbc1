import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { urlToHttpOptions } from "node:url";

/** What a POST came back with. The body is kept up to 64 KiB. */
export interface PostResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

const BODY_CAP = 64 * 1024;

/**
 * Keep-alive agents per scheme, shared by the HTTP-based senders. node:http rather than fetch:
 * fetch refuses some ports and hides the cause of a network error.
 */
export interface HttpPoster {
  post(url: URL, headers: Record<string, string>, body: Buffer, signal: AbortSignal): Promise<PostResponse>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/** A poster with its own keep-alive agents (at most `maxSockets` connections per origin). */
export function createHttpPoster(maxSockets = 64): HttpPoster {
  const http = new HttpAgent({ keepAlive: true, maxSockets });
  const https = new HttpsAgent({ keepAlive: true, maxSockets });
  // Request options of a URL object the caller keeps (a webhook contact's), computed once.
  const options = new WeakMap<URL, ReturnType<typeof urlToHttpOptions>>();
  return {
    close() {
      http.destroy();
      https.destroy();
    },
    post(url, headers, body, signal) {
      return new Promise((resolve, reject) => {
        const secure = url.protocol === "https:";
        let base = options.get(url);
        if (base === undefined) {
          base = urlToHttpOptions(url);
          options.set(url, base);
        }
        const req = (secure ? httpsRequest : httpRequest)(
          {
            ...base,
            method: "POST",
            headers: { ...headers, "content-length": String(body.length) },
            agent: secure ? https : http,
            signal,
          },
          (res) => {
            const chunks: Buffer[] = [];
            let kept = 0;
            res.on("data", (c: Buffer) => {
              if (kept < BODY_CAP) {
                chunks.push(c);
                kept += c.length;
              }
            });
            res.on("error", reject);
            res.on("end", () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks).toString("utf8"),
              }),
            );
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    },
  };
}

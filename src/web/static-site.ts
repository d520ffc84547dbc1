import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** One built file, held in memory with its gzip form. */
interface Asset {
  readonly body: Buffer;
  readonly gzip: Buffer | undefined;
  readonly contentType: string;
  readonly cacheControl: string;
}

/** What the HTTP handler asks of the dashboard: answer a GET/HEAD path, or say it is not ours. */
export interface StaticSite {
  /** Whether the dashboard's build was found (otherwise `/` falls back to the placeholder page). */
  readonly built: boolean;
  /** The answer for `path` (without query), or undefined when the path is not the dashboard's. */
  serve(path: string, acceptEncoding: string | undefined): StaticAnswer | undefined;
}

/** A ready answer: status 200, headers and body. */
export interface StaticAnswer {
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

/** dist/web, where `vite build` writes the dashboard (this file runs as dist/src/web/static-site.js). */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL("../../web/", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};

/**
 * The dashboard's Content-Security-Policy: scripts, styles and API calls only from this origin, no
 * inline script, no eval, no plugin, and no framing (`frame-ancestors 'none'`, with the
 * `X-Frame-Options: DENY` the HTTP handler adds, against clickjacking the command dialogs). Preact
 * sets `style` through the CSSOM, which `style-src 'self'` allows; `data:` images are the favicon.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * The built dashboard, read once into memory: `index.html` at `/` (no-cache, so a new build is
 * seen at once) and everything under `assets/` (content-hashed names, so cached for a year as
 * immutable). Text files are also held gzip'd and sent so to clients that accept it. Without a
 * build (`tsc` only, no `vite build`) `built` is false and nothing is served.
 */
export function createStaticSite(dir: string = DEFAULT_WEB_DIR): StaticSite {
  const assets = new Map<string, Asset>();
  const index = join(dir, "index.html");
  let built = false;
  try {
    built = statSync(index).isFile();
  } catch {
    built = false;
  }
  if (built) {
    for (const file of walk(dir)) {
      const rel = relative(dir, file).split(sep).join("/");
      const body = readFileSync(file);
      const type = TYPES[extname(file)] ?? "application/octet-stream";
      const compressible = /^text\/|svg|json/.test(type) && body.length > 512;
      const hashed = rel.startsWith("assets/");
      assets.set(rel === "index.html" ? "/" : `/${rel}`, {
        body,
        gzip: compressible ? gzipSync(body, { level: 9 }) : undefined,
        contentType: type,
        cacheControl: hashed ? "public, max-age=31536000, immutable" : "no-cache",
      });
    }
  }
  return {
    built,
    serve(path, acceptEncoding) {
      const a = assets.get(path === "/index.html" ? "/" : path);
      if (a === undefined) return undefined;
      const gz = a.gzip !== undefined && /\bgzip\b/.test(acceptEncoding ?? "");
      const body = gz ? (a.gzip as Buffer) : a.body;
      const headers: Record<string, string> = {
        "content-type": a.contentType,
        "content-length": String(body.length),
        "cache-control": a.cacheControl,
        "x-content-type-options": "nosniff",
      };
      if (a.contentType.startsWith("text/html")) headers["content-security-policy"] = DASHBOARD_CSP;
      if (a.gzip !== undefined) headers.vary = "accept-encoding";
      if (gz) headers["content-encoding"] = "gzip";
      return { headers, body };
    },
  };
}

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile()) yield p;
  }
}

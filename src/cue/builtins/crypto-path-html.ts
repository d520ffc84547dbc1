/**
 * Digest packages (`crypto/md5`, `crypto/sha1`, `crypto/sha256`, `crypto/sha512`), `path` (slash-
 * separated paths; the optional `os` argument only accepts "unix"/"plan9") and `html`.
 */

import { createHash } from "node:crypto";
import { posix } from "node:path";
import { concrete, listValues, str as strArg } from "../eval/builtins/args.js";
import { makeList } from "../eval/builtins/make.js";
import { fn, registerPackage } from "../eval/builtins/registry.js";
import { FALSE, TRUE, type Value } from "../eval/values.js";
import { bytes, fail, int, str } from "./helpers.js";

function input(a: Value[], fname: string): Buffer {
  const v = concrete(a, 0, fname);
  if (v.t === "bytes") return Buffer.from(v.v);
  if (v.t === "string") return Buffer.from(v.v, "utf8");
  return fail(fname, "argument must be bytes or string");
}

const digest = (alg: string, fname: string) =>
  fn(1, (a) => bytes(new Uint8Array(createHash(alg).update(input(a, fname)).digest())));

registerPackage("crypto/md5", {
  Sum: digest("md5", "crypto/md5.Sum"),
  Size: { kind: "value", value: int(16) },
});
registerPackage("crypto/sha1", {
  Sum: digest("sha1", "crypto/sha1.Sum"),
  Size: { kind: "value", value: int(20) },
});
registerPackage("crypto/sha256", {
  Sum256: digest("sha256", "crypto/sha256.Sum256"),
  Sum224: digest("sha224", "crypto/sha256.Sum224"),
  Size: { kind: "value", value: int(32) },
  Size224: { kind: "value", value: int(28) },
});
registerPackage("crypto/sha512", {
  Sum512: digest("sha512", "crypto/sha512.Sum512"),
  Sum384: digest("sha384", "crypto/sha512.Sum384"),
  Size: { kind: "value", value: int(64) },
  Size384: { kind: "value", value: int(48) },
});

function unixOnly(a: Value[], i: number, fname: string): void {
  if (a.length <= i) return;
  const os = strArg(a, i, fname);
  if (os !== "unix" && os !== "plan9") fail(fname, `OS ${os} is not supported (only unix paths)`);
}

const pathFn = (name: string, f: (p: string) => Value) =>
  fn(
    2,
    (a) => {
      unixOnly(a, 1, `path.${name}`);
      return f(strArg(a, 0, `path.${name}`));
    },
    { minParams: 1 },
  );

registerPackage("path", {
  Base: pathFn("Base", (p) => str(p === "" ? "." : posix.basename(p.replace(/\/+$/, "")) || "/")),
  Dir: pathFn("Dir", (p) => str(posix.dirname(p) === "" ? "." : posix.normalize(posix.dirname(p)))),
  Ext: pathFn("Ext", (p) => str(posix.extname(p))),
  Clean: pathFn("Clean", (p) => str(p === "" ? "." : posix.normalize(p).replace(/(.)\/$/, "$1"))),
  IsAbs: pathFn("IsAbs", (p) => (p.startsWith("/") ? TRUE : FALSE)),
  Split: pathFn("Split", (p) => {
    const i = p.lastIndexOf("/");
    return makeList([str(p.slice(0, i + 1)), str(p.slice(i + 1))]);
  }),
  Join: fn(
    2,
    (a) => {
      unixOnly(a, 1, "path.Join");
      const parts = listValues(a, 0, "path.Join").map((v) =>
        v.t === "string" ? v.v : fail("path.Join", "elements must be strings"),
      );
      const nonEmpty = parts.filter((x) => x !== "");
      return str(nonEmpty.length === 0 ? "" : posix.normalize(nonEmpty.join("/")).replace(/(.)\/$/, "$1"));
    },
    { minParams: 1 },
  ),
});

const entities: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  "#39": "'",
  "#34": '"',
};

registerPackage("html", {
  Escape: fn(1, (a) =>
    str(
      strArg(a, 0, "html.Escape").replace(/[&'<>"]/g, (c) =>
        c === "&" ? "&amp;" : c === "'" ? "&#39;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&#34;",
      ),
    ),
  ),
  Unescape: fn(1, (a) =>
    str(
      strArg(a, 0, "html.Unescape").replace(/&(#x?[0-9a-fA-F]+|[a-z]+);/g, (m, e: string) => {
        if (entities[e] !== undefined) return entities[e] as string;
        if (e.startsWith("#x")) return String.fromCodePoint(Number.parseInt(e.slice(2), 16));
        if (e.startsWith("#")) return String.fromCodePoint(Number.parseInt(e.slice(1), 10));
        return m;
      }),
    ),
  ),
});

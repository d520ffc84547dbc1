/**
 * `encoding/base64` and `encoding/hex`. As in CUE, the base64 functions take the encoding as a
 * first argument, which must be `null` (standard encoding).
 */

import { concrete, int as intArg } from "../eval/builtins/args.js";
import { fn, registerPackage } from "../eval/builtins/registry.js";
import type { Value } from "../eval/values.js";
import { bytes, fail, int, str } from "./helpers.js";

/** Bytes of a string or bytes argument. */
function data(args: Value[], i: number, fname: string): Buffer {
  const v = concrete(args, i, fname);
  if (v.t === "bytes") return Buffer.from(v.v);
  if (v.t === "string") return Buffer.from(v.v, "utf8");
  return fail(fname, `argument ${i + 1} must be bytes or string`);
}

function stdEncoding(args: Value[], fname: string): void {
  const e = concrete(args, 0, fname);
  if (e.t !== "null")
    fail(fname, "base64: unsupported encoding (only null, the standard encoding, is supported)");
}

registerPackage("encoding/base64", {
  Encode: fn(2, (a) => {
    stdEncoding(a, "encoding/base64.Encode");
    return str(data(a, 1, "encoding/base64.Encode").toString("base64"));
  }),
  Decode: fn(2, (a) => {
    stdEncoding(a, "encoding/base64.Decode");
    const text = data(a, 1, "encoding/base64.Decode").toString("latin1");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
      fail("encoding/base64.Decode", "illegal base64 data");
    }
    return bytes(new Uint8Array(Buffer.from(text, "base64")));
  }),
  EncodedLen: fn(2, (a) => {
    stdEncoding(a, "encoding/base64.EncodedLen");
    return int(((intArg(a, 1, "encoding/base64.EncodedLen") + 2n) / 3n) * 4n);
  }),
  DecodedLen: fn(2, (a) => {
    stdEncoding(a, "encoding/base64.DecodedLen");
    return int((intArg(a, 1, "encoding/base64.DecodedLen") / 4n) * 3n);
  }),
});

registerPackage("encoding/hex", {
  Encode: fn(1, (a) => str(data(a, 0, "encoding/hex.Encode").toString("hex"))),
  Decode: fn(1, (a) => {
    const text = data(a, 0, "encoding/hex.Decode").toString("latin1");
    if (!/^([0-9a-fA-F]{2})*$/.test(text)) fail("encoding/hex.Decode", "invalid hex data");
    return bytes(new Uint8Array(Buffer.from(text, "hex")));
  }),
  EncodedLen: fn(1, (a) => int(intArg(a, 0, "encoding/hex.EncodedLen") * 2n)),
  DecodedLen: fn(1, (a) => int(intArg(a, 0, "encoding/hex.DecodedLen") / 2n)),
});

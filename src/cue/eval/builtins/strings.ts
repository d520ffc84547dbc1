/**
 * The `strings` package (the commonly used subset of CUE's, with Go semantics).
 */

import { STRING } from "../kinds.js";
import { bottom, FALSE, TRUE, type Value } from "../values.js";
import { int, str, typedListValues } from "./args.js";
import { makeList } from "./make.js";
import { fn, registerPackage } from "./registry.js";

const s = (v: string): Value => ({ t: "string", v });
const b = (v: boolean): Value => (v ? TRUE : FALSE);
const n = (v: number | bigint): Value => ({ t: "int", v: BigInt(v) });
const runes = (x: string): string[] => Array.from(x);
const byteIndex = (x: string, charIndex: number): number =>
  charIndex < 0 ? -1 : Buffer.byteLength(x.slice(0, charIndex), "utf8");

function trimSet(x: string, cut: string, left: boolean, right: boolean): string {
  const set = new Set(runes(cut));
  const r = runes(x);
  let i = 0;
  let j = r.length;
  if (left) while (i < j && set.has(r[i] as string)) i++;
  if (right) while (j > i && set.has(r[j - 1] as string)) j--;
  return r.slice(i, j).join("");
}

function split(x: string, sep: string, limit: number): string[] {
  if (limit === 0) return [];
  if (sep === "") {
    const r = runes(x);
    if (limit < 0 || limit >= r.length) return r;
    return [...r.slice(0, limit - 1), r.slice(limit - 1).join("")];
  }
  const parts = x.split(sep);
  if (limit < 0 || parts.length <= limit) return parts;
  return [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(sep)];
}

registerPackage("strings", {
  Contains: fn(2, (a) => b(str(a, 0, "strings.Contains").includes(str(a, 1, "strings.Contains"))), {
    validator: true,
    subject: STRING,
  }),
  ContainsAny: fn(
    2,
    (a) => {
      const x = str(a, 0, "strings.ContainsAny");
      return b(runes(str(a, 1, "strings.ContainsAny")).some((c) => x.includes(c)));
    },
    { validator: true, subject: STRING },
  ),
  ContainsRune: fn(2, (a) =>
    b(
      str(a, 0, "strings.ContainsRune").includes(
        String.fromCodePoint(Number(int(a, 1, "strings.ContainsRune"))),
      ),
    ),
  ),
  HasPrefix: fn(2, (a) => b(str(a, 0, "strings.HasPrefix").startsWith(str(a, 1, "strings.HasPrefix"))), {
    validator: true,
    subject: STRING,
  }),
  HasSuffix: fn(2, (a) => b(str(a, 0, "strings.HasSuffix").endsWith(str(a, 1, "strings.HasSuffix"))), {
    validator: true,
    subject: STRING,
  }),
  Index: fn(2, (a) => {
    const x = str(a, 0, "strings.Index");
    return n(byteIndex(x, x.indexOf(str(a, 1, "strings.Index"))));
  }),
  LastIndex: fn(2, (a) => {
    const x = str(a, 0, "strings.LastIndex");
    return n(byteIndex(x, x.lastIndexOf(str(a, 1, "strings.LastIndex"))));
  }),
  IndexAny: fn(2, (a) => {
    const x = str(a, 0, "strings.IndexAny");
    const set = new Set(runes(str(a, 1, "strings.IndexAny")));
    let i = 0;
    for (const c of x) {
      if (set.has(c)) return n(byteIndex(x, i));
      i += c.length;
    }
    return n(-1);
  }),
  Count: fn(2, (a) => {
    const x = str(a, 0, "strings.Count");
    const sub = str(a, 1, "strings.Count");
    if (sub === "") return n(runes(x).length + 1);
    return n(x.split(sub).length - 1);
  }),
  Join: fn(2, (a) => {
    const items = typedListValues(a, 0, "strings.Join", "string");
    const sep = str(a, 1, "strings.Join");
    const parts: string[] = [];
    for (const it of items) {
      if (it.t !== "string") return bottom("eval", `strings.Join: element is not a string`);
      parts.push(it.v);
    }
    return s(parts.join(sep));
  }),
  Split: fn(2, (a) => makeList(split(str(a, 0, "strings.Split"), str(a, 1, "strings.Split"), -1).map(s))),
  SplitN: fn(3, (a) =>
    makeList(
      split(
        str(a, 0, "strings.SplitN"),
        str(a, 1, "strings.SplitN"),
        Number(int(a, 2, "strings.SplitN")),
      ).map(s),
    ),
  ),
  Fields: fn(1, (a) =>
    makeList(
      str(a, 0, "strings.Fields")
        .split(/\s+/)
        .filter((x) => x !== "")
        .map(s),
    ),
  ),
  Replace: fn(4, (a) => {
    const x = str(a, 0, "strings.Replace");
    const old = str(a, 1, "strings.Replace");
    const nw = str(a, 2, "strings.Replace");
    let k = Number(int(a, 3, "strings.Replace"));
    if (k < 0) return s(x.split(old).join(nw));
    let out = x;
    let from = 0;
    while (k-- > 0) {
      const i = out.indexOf(old, from);
      if (i < 0) break;
      out = out.slice(0, i) + nw + out.slice(i + old.length);
      from = i + nw.length + (old === "" ? 1 : 0);
    }
    return s(out);
  }),
  ReplaceAll: fn(3, (a) =>
    s(
      str(a, 0, "strings.ReplaceAll")
        .split(str(a, 1, "strings.ReplaceAll"))
        .join(str(a, 2, "strings.ReplaceAll")),
    ),
  ),
  Repeat: fn(2, (a) => {
    const c = int(a, 1, "strings.Repeat");
    if (c < 0n || c > 1_000_000n) return bottom("eval", "strings.Repeat: invalid count");
    return s(str(a, 0, "strings.Repeat").repeat(Number(c)));
  }),
  ToUpper: fn(1, (a) => s(str(a, 0, "strings.ToUpper").toUpperCase())),
  ToLower: fn(1, (a) => s(str(a, 0, "strings.ToLower").toLowerCase())),
  ToTitle: fn(1, (a) => s(str(a, 0, "strings.ToTitle").toUpperCase())),
  Title: fn(1, (a) =>
    s(
      str(a, 0, "strings.Title").replace(
        /(^|[^\p{L}\p{N}_'])(\p{L})/gu,
        (_m, p: string, c: string) => p + c.toUpperCase(),
      ),
    ),
  ),
  TrimSpace: fn(1, (a) => s(str(a, 0, "strings.TrimSpace").trim())),
  Trim: fn(2, (a) => s(trimSet(str(a, 0, "strings.Trim"), str(a, 1, "strings.Trim"), true, true))),
  TrimLeft: fn(2, (a) =>
    s(trimSet(str(a, 0, "strings.TrimLeft"), str(a, 1, "strings.TrimLeft"), true, false)),
  ),
  TrimRight: fn(2, (a) =>
    s(trimSet(str(a, 0, "strings.TrimRight"), str(a, 1, "strings.TrimRight"), false, true)),
  ),
  TrimPrefix: fn(2, (a) => {
    const x = str(a, 0, "strings.TrimPrefix");
    const p = str(a, 1, "strings.TrimPrefix");
    return s(x.startsWith(p) ? x.slice(p.length) : x);
  }),
  TrimSuffix: fn(2, (a) => {
    const x = str(a, 0, "strings.TrimSuffix");
    const p = str(a, 1, "strings.TrimSuffix");
    return s(p !== "" && x.endsWith(p) ? x.slice(0, x.length - p.length) : x);
  }),
  MinRunes: fn(
    2,
    (a) => b(runes(str(a, 0, "strings.MinRunes")).length >= Number(int(a, 1, "strings.MinRunes"))),
    {
      validator: true,
      subject: STRING,
    },
  ),
  MaxRunes: fn(
    2,
    (a) => b(runes(str(a, 0, "strings.MaxRunes")).length <= Number(int(a, 1, "strings.MaxRunes"))),
    {
      validator: true,
      subject: STRING,
    },
  ),
  Runes: fn(1, (a) => makeList(runes(str(a, 0, "strings.Runes")).map((c) => n(c.codePointAt(0) ?? 0)))),
  SliceRunes: fn(3, (a) => {
    const r = runes(str(a, 0, "strings.SliceRunes"));
    const i = Number(int(a, 1, "strings.SliceRunes"));
    const j = Number(int(a, 2, "strings.SliceRunes"));
    if (i < 0 || j < i || j > r.length) return bottom("eval", "strings.SliceRunes: index out of range");
    return s(r.slice(i, j).join(""));
  }),
  ByteAt: fn(2, (a) => {
    const buf = Buffer.from(str(a, 0, "strings.ByteAt"), "utf8");
    const i = Number(int(a, 1, "strings.ByteAt"));
    if (i < 0 || i >= buf.length) return bottom("eval", "strings.ByteAt: index out of range");
    return n(buf[i] ?? 0);
  }),
});

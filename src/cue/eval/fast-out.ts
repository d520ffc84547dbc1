/**
 * Output of the fast export path: one set of calls writes exported data, `cue export`-style JSON
 * text (exactly as the export walk writes it), nothing (validation), or a {@link Snap} — an exported
 * value kept to be written again wherever the same declaration is used alone. The mode is module
 * state: evaluation is synchronous and the fast path does not re-enter itself.
 */

import type { CueData } from "./export.js";
import { atomData, atomJSON, quoteKey, setField } from "./export-atoms.js";
import { textBegin, textEnd, writeAscii, writeChar, writeQuoted, writeText } from "./fast-text.js";
import type { Atom } from "./values.js";

export type Mode = "data" | "json" | "none" | "snap";

/** An exported value kept for reuse: an atom, a struct's fields, or a list's items. */
export type Snap =
  | Atom
  | { readonly t: "struct"; readonly keys: string[]; readonly vals: Snap[] }
  | { readonly t: "list"; readonly items: Snap[] };

/** A struct or list being written: data, a snap, or null (JSON text and validation keep nothing). */
export type Out = Record<string, CueData> | CueData[] | Snap | null;

let mode: Mode = "data";
let indent = 0;
const pads: string[] = [];

/** Starts writing in `m` (JSON indented by `jsonIndent`). */
export function begin(m: Mode, jsonIndent: number): void {
  mode = m;
  indent = jsonIndent;
  pads.length = 0;
  textBegin();
}

/** The JSON text written since `begin`, in chunks (none in other modes); forgets it. */
export function finish(): string[] {
  return textEnd();
}

/** Runs `fn` writing snaps (the JSON written so far is kept). */
export function inSnapMode<T>(fn: () => T): T {
  const m = mode;
  mode = "snap";
  try {
    return fn();
  } finally {
    mode = m;
  }
}

function pad(n: number): string {
  if (indent <= 0) return "";
  let p = pads[n];
  if (p === undefined) {
    p = `\n${" ".repeat(n * indent)}`;
    pads[n] = p;
  }
  return p;
}

export function atomOut(a: Atom): unknown {
  switch (mode) {
    case "data":
      return atomData(a);
    case "json":
      if (a.t === "string") writeQuoted(a.v);
      else writeText(atomJSON(a));
      return null;
    case "snap":
      return a;
    case "none":
      return null;
    default: {
      const never: never = mode;
      return never;
    }
  }
}

export function structOpen(): Out {
  switch (mode) {
    case "data":
      return {};
    case "json":
      writeChar(0x7b);
      return null;
    case "snap":
      return { t: "struct", keys: [], vals: [] };
    default:
      return null;
  }
}

/** Before the value of the field `name` (the `count`-th written) at level `lvl`. */
export function structKey(count: number, name: string, lvl: number): void {
  if (mode !== "json") return;
  if (count > 0) writeChar(0x2c);
  if (indent > 0) writeText(pad(lvl + 1));
  writeQuoted(name);
  writeChar(0x3a);
  if (indent > 0) writeChar(0x20);
}

/** After the value `x` of the field `name`. */
export function structSet(o: Out, name: string, x: unknown): void {
  if (mode === "data") setField(o as Record<string, CueData>, name, x as CueData);
  else if (mode === "snap") {
    const s = o as { keys: string[]; vals: Snap[] };
    s.keys.push(name);
    s.vals.push(x as Snap);
  }
}

export function structClose(count: number, lvl: number): void {
  if (mode !== "json") return;
  if (count > 0 && indent > 0) writeText(pad(lvl));
  writeChar(0x7d);
}

export function listOpen(): Out {
  switch (mode) {
    case "data":
      return [];
    case "json":
      writeChar(0x5b);
      return null;
    case "snap":
      return { t: "list", items: [] };
    default:
      return null;
  }
}

/** Before the element at `i` of a list at level `lvl`. */
export function listKey(i: number, lvl: number): void {
  if (mode !== "json") return;
  if (i > 0) writeChar(0x2c);
  if (indent > 0) writeText(pad(lvl + 1));
}

export function listPush(o: Out, x: unknown): void {
  if (mode === "data") (o as CueData[]).push(x as CueData);
  else if (mode === "snap") (o as { items: Snap[] }).items.push(x as Snap);
}

export function listClose(count: number, lvl: number): void {
  if (mode !== "json") return;
  if (count > 0 && indent > 0) writeText(pad(lvl));
  writeChar(0x5d);
}

/** Writes a snap again at level `lvl` (new data objects each time). */
export function emitSnap(s: Snap, lvl: number): unknown {
  if (mode === "snap") return s;
  if (mode === "none") return null;
  switch (s.t) {
    case "struct": {
      const o = structOpen();
      const keys = s.keys;
      for (let i = 0; i < keys.length; i++) {
        const name = keys[i] as string;
        structKey(i, name, lvl);
        structSet(o, name, emitSnap(s.vals[i] as Snap, lvl + 1));
      }
      structClose(keys.length, lvl);
      return o;
    }
    case "list": {
      const o = listOpen();
      const items = s.items;
      for (let i = 0; i < items.length; i++) {
        listKey(i, lvl);
        listPush(o, emitSnap(items[i] as Snap, lvl + 1));
      }
      listClose(items.length, lvl);
      return o;
    }
    default:
      return atomOut(s);
  }
}

/** Whether JSON text is being written without indentation (a snap then always reads the same). */
export function flatJSON(): boolean {
  return mode === "json" && indent <= 0;
}

/**
 * Writes fields as unindented JSON text (`"a":1,"b":2`), after the `count` written before them;
 * `ascii`: the text is ASCII and short.
 */
export function putFields(count: number, text: string, ascii: boolean): void {
  if (count > 0) writeChar(0x2c);
  if (ascii) writeAscii(text);
  else writeText(text);
}

/** Writes text made by {@link snapJSON}. */
export function putJSON(text: string): void {
  writeText(text);
}

/** A snap as unindented JSON text: what {@link emitSnap} writes then. */
export function snapJSON(s: Snap): string {
  switch (s.t) {
    case "struct": {
      let out = "{";
      for (let i = 0; i < s.keys.length; i++) {
        if (i > 0) out += ",";
        out += `${quoteKey(s.keys[i] as string)}:${snapJSON(s.vals[i] as Snap)}`;
      }
      return `${out}}`;
    }
    case "list":
      return `[${s.items.map(snapJSON).join(",")}]`;
    default:
      return atomJSON(s);
  }
}

/** How deep and how large a snap is (for the depth and step limits). */
export function snapSize(s: Snap): { height: number; size: number } {
  switch (s.t) {
    case "struct":
    case "list": {
      let height = 0;
      let size = 1;
      for (const x of s.t === "struct" ? s.vals : s.items) {
        const c = snapSize(x);
        if (c.height > height) height = c.height;
        size += c.size;
      }
      return { height: height + 1, size };
    }
    default:
      return { height: 0, size: 1 };
  }
}

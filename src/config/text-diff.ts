/** One line of a diff: kept (` `), removed (`-`) or added (`+`). */
interface Op {
  readonly t: " " | "-" | "+";
  readonly line: string;
}

/** Past this many differing lines the middle of a diff is shown as removed, then added, whole. */
const MAX_EDITS = 2_000;

/** Marks a last line without a newline, so that such a line never equals one with it. */
const NO_NEWLINE = "\u0000no newline";

function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  else lines[lines.length - 1] += NO_NEWLINE;
  return lines;
}

/**
 * The shortest edit script from `a` to `b` (Myers' O((N+M)D) algorithm), or undefined when it has
 * more than `maxD` edits: what it keeps per step grows with D², so a document rewritten wholesale
 * is shown as such instead.
 */
function myers(a: readonly string[], b: readonly string[], maxD: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  /** v before each step d, indices -(d+1)..d+1. */
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= Math.min(max, maxD) && !found; d++) {
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[off + k - 1] as number) < (v[off + k + 1] as number))
          ? (v[off + k + 1] as number)
          : (v[off + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  if (!found) return undefined;
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const t = trace[d] as Int32Array;
    const at = (k: number) => t[k + d + 1] as number;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ t: " ", line: a[x - 1] as string });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) ops.push({ t: "+", line: b[prevY] as string });
      else ops.push({ t: "-", line: a[prevX] as string });
    }
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

/** The edit script of two line lists: common ends kept, the middle by Myers (or whole). */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  const midA = a.slice(p, a.length - s);
  const midB = b.slice(p, b.length - s);
  const mid = myers(midA, midB, MAX_EDITS) ?? [
    ...midA.map((line): Op => ({ t: "-", line })),
    ...midB.map((line): Op => ({ t: "+", line })),
  ];
  return [
    ...a.slice(0, p).map((line): Op => ({ t: " ", line })),
    ...mid,
    ...a.slice(a.length - s).map((line): Op => ({ t: " ", line })),
  ];
}

function printed(op: Op): string {
  return op.line.endsWith(NO_NEWLINE)
    ? `${op.t}${op.line.slice(0, -NO_NEWLINE.length)}\n\\ No newline at end of file\n`
    : `${op.t}${op.line}\n`;
}

function range(start: number, count: number): string {
  // An empty side names the line before the hunk (0 at the top), as diff -u does.
  const first = count === 0 ? start : start + 1;
  return count === 1 ? `${first}` : `${first},${count}`;
}

/**
 * A unified diff (`diff -u` style, `context` lines around each change) of two documents, headed
 * `--- from` / `+++ to`; "" when they are equal. Documents that differ in more than 2,000 lines
 * (past their common beginning and end) show that middle as removed, then added.
 */
export function unifiedDiff(
  from: string,
  to: string,
  names: { from: string; to: string },
  context = 3,
): string {
  if (from === to) return "";
  const ops = editScript(linesOf(from), linesOf(to));
  const out = [`--- ${names.from}\n`, `+++ ${names.to}\n`];
  let i = 0;
  // Line numbers (0-based) in each document at ops[i].
  let oldLine = 0;
  let newLine = 0;
  const advance = (op: Op) => {
    if (op.t !== "+") oldLine++;
    if (op.t !== "-") newLine++;
  };
  while (i < ops.length) {
    // The next change.
    let c = i;
    while (c < ops.length && (ops[c] as Op).t === " ") c++;
    if (c === ops.length) break;
    const start = Math.max(i, c - context);
    for (; i < start; i++) advance(ops[i] as Op);
    // The hunk runs until a stretch of more than 2 × context kept lines (or the end).
    let end = c;
    for (let j = c; j < ops.length; j++) {
      if ((ops[j] as Op).t !== " ") {
        end = j + 1;
        continue;
      }
      if (j - end + 1 > 2 * context) break;
    }
    const stop = Math.min(ops.length, end + context);
    const hunk = ops.slice(start, stop);
    const oldCount = hunk.filter((op) => op.t !== "+").length;
    const newCount = hunk.filter((op) => op.t !== "-").length;
    out.push(`@@ -${range(oldLine, oldCount)} +${range(newLine, newCount)} @@\n`);
    for (const op of hunk) {
      out.push(printed(op));
      advance(op);
    }
    i = stop;
  }
  return out.join("");
}

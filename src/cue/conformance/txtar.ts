/**
 * A reader for txtar archives (golang.org/x/tools/txtar): a free-form comment, then sections that each
 * start with a line `-- name --` and run until the next such line.
 */

/** One section of an archive. */
export interface TxtarFile {
  readonly name: string;
  readonly data: string;
}

/** A parsed archive. */
export interface Txtar {
  readonly comment: string;
  readonly files: readonly TxtarFile[];
}

const marker = /^-- (.+?) --[ \t]*\r?$/;

/** Parses archive text; never throws (a text without markers is all comment). */
export function parseTxtar(text: string): Txtar {
  const lines = text.split("\n");
  const files: TxtarFile[] = [];
  let comment: string[] = [];
  let current: { name: string; lines: string[] } | undefined;
  const flush = (): void => {
    if (current !== undefined) files.push({ name: current.name, data: joinLines(current.lines) });
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const m = marker.exec(line);
    if (m !== null) {
      flush();
      current = { name: (m[1] ?? "").trim(), lines: [] };
      continue;
    }
    // The final split element after a trailing newline is not a line.
    if (i === lines.length - 1 && line === "") break;
    if (current === undefined) comment.push(line);
    else current.lines.push(line);
  }
  flush();
  if (comment.length === 0) comment = [];
  return { comment: joinLines(comment), files };
}

function joinLines(lines: readonly string[]): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

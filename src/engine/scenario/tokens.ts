/**
 * Lexing for scenario files: whitespace-separated words, where double quotes group (and are
 * removed): `output="connection refused"` is one word `output=connection refused`.
 */
export function tokenize(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let inWord = false;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quoted) {
      if (c === "\\" && i + 1 < line.length) {
        cur += line[++i];
      } else if (c === '"') {
        quoted = false;
      } else {
        cur += c;
      }
      continue;
    }
    if (c === '"') {
      quoted = true;
      inWord = true;
    } else if (c === " " || c === "\t") {
      if (inWord) out.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quoted) throw new Error("unterminated quote");
  if (inWord) out.push(cur);
  return out;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `90s`, `5m12s`, `1h30m`, `250ms`, `0` into milliseconds. */
export function parseDuration(text: string): number {
  if (text === "0") return 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let pos = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    pos = re.lastIndex;
  }
  if (pos === 0 || pos !== text.length) throw new Error(`bad duration "${text}" (want e.g. 90s, 5m12s, 1h)`);
  return total;
}

/** Splits `key=value`; undefined for a bare word. */
export function keyValue(word: string): [string, string] | undefined {
  const i = word.indexOf("=");
  return i <= 0 ? undefined : [word.slice(0, i), word.slice(i + 1)];
}

/** `web` is a host key, `web/http` the service key `web!http`. */
export function objectKeyOf(word: string): string {
  return word.replace("/", "!");
}

/** The scenario spelling of an object key: `web!http` reads `web/http`. */
export function objectWord(key: string): string {
  return key.replace("!", "/");
}

/** Digits of the sequence numbers in a segment's name: names sort in log order. */
const DIGITS = 16;

/** `<first>-<last>.ndjson.gz`, zero-padded: the log's events first..last, gzip-compressed NDJSON. */
export function segmentName(first: number, last: number): string {
  return `${String(first).padStart(DIGITS, "0")}-${String(last).padStart(DIGITS, "0")}.ndjson.gz`;
}

/** The range a segment name covers, or undefined for another file. */
export function parseSegmentName(name: string): { first: number; last: number } | undefined {
  const m = /^(\d+)-(\d+)\.ndjson\.gz$/.exec(name);
  return m === null ? undefined : { first: Number(m[1]), last: Number(m[2]) };
}

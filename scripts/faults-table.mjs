#!/usr/bin/env node
// Prints the figures the fault-injection suite's long mode collected (one JSON line per case, see
// src/testing/faults/harness.ts reportFigures) as a Markdown table, for docs/reliability.md.
import { existsSync, readFileSync } from "node:fs";

const file = process.argv[2] ?? "faults-figures.jsonl";
if (!existsSync(file)) {
  console.error(`no figures in ${file}: did the fault cases run?`);
  process.exit(1);
}
console.log("\n| case | figures |\n|---|---|");
for (const line of readFileSync(file, "utf8").split("\n")) {
  if (line.trim() === "") continue;
  const { case: name, mode, ...figures } = JSON.parse(line);
  const shown = Object.entries(figures)
    .map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : v}`)
    .join(", ");
  console.log(`| ${name} (${mode}) | ${shown} |`);
}

/**
 * One `lookout validate` run for bench/config-validate.ts: loads FILE with the real loader, prints
 * {loadMs, maxRssKb, phases} as JSON on stdout, exits 1 on diagnostics (printed on stderr).
 */
import { readFileSync } from "node:fs";
import { formatDiagnostic } from "../src/config/diagnostic.js";
import { loadConfig } from "../src/config/loader.js";

const file = process.argv[2] as string;
const start = performance.now();
const text = readFileSync(file, "utf8");
const phases: Record<string, number> = {};
const r = loadConfig({ file, text, onPhase: (p, ms) => (phases[p] = ms) });
const loadMs = performance.now() - start;
if (!r.ok) {
  for (const d of r.diagnostics.slice(0, 20)) process.stderr.write(`${formatDiagnostic(d)}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ loadMs, maxRssKb: process.resourceUsage().maxRSS, phases })}\n`);

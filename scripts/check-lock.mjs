#!/usr/bin/env node
// Compares two package-lock.json files by what they resolve for this platform: every entry of
// `packages` except optional packages bound to an os or cpu (which packages the registry serves
// for other platforms changes over time, and must not fail a check). Exits 1 and lists the
// differences when the resolved trees differ.
//
//   node scripts/check-lock.mjs COMMITTED_LOCK CURRENT_LOCK
import { readFileSync } from "node:fs";

function resolved(path) {
  const lock = JSON.parse(readFileSync(path, "utf8"));
  const out = new Map();
  for (const [name, p] of Object.entries(lock.packages ?? {})) {
    if (p.optional === true && (p.os !== undefined || p.cpu !== undefined)) continue;
    out.set(
      name,
      JSON.stringify({
        version: p.version,
        resolved: p.resolved,
        integrity: p.integrity,
        dependencies: p.dependencies,
        optionalDependencies: p.optionalDependencies,
        dev: p.dev,
        peer: p.peer,
      }),
    );
  }
  return out;
}

const [a, b] = process.argv.slice(2);
if (a === undefined || b === undefined) {
  console.error("usage: check-lock.mjs COMMITTED_LOCK CURRENT_LOCK");
  process.exit(2);
}
const before = resolved(a);
const after = resolved(b);
const diffs = [];
for (const [name, v] of before) {
  if (!after.has(name)) diffs.push(`- ${name || "(root)"}`);
  else if (after.get(name) !== v) diffs.push(`~ ${name || "(root)"}`);
}
for (const name of after.keys()) if (!before.has(name)) diffs.push(`+ ${name || "(root)"}`);
if (diffs.length > 0) {
  console.error(`package-lock.json does not match package.json (${diffs.length} resolved packages differ):`);
  for (const d of diffs.slice(0, 50)) console.error(`  ${d}`);
  process.exit(1);
}
console.log(
  `package-lock.json resolves the same ${before.size} packages (platform-bound optional ones aside)`,
);

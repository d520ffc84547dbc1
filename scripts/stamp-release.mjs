#!/usr/bin/env node
// Stamps a release build: writes the version beside the compiled main (dist/src/VERSION), which
// GetServerInfo then reports. Usage: npm run build && npm run stamp -- v1.2.3
import { writeFileSync } from "node:fs";

const v = process.argv[2] ?? "";
if (!/^v\d+\.\d+\.\d+$/.test(v)) {
  console.error(`usage: stamp-release vX.Y.Z (got ${JSON.stringify(v)})`);
  process.exit(2);
}
writeFileSync("dist/src/VERSION", `${v}\n`);
console.log(`stamped dist/src/VERSION with ${v}`);

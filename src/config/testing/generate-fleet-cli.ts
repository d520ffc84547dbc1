/**
 * `node dist/src/config/testing/generate-fleet-cli.js SERVICES [FILE]`: writes a generated fleet
 * document to FILE (or stdout).
 */
import { writeFileSync } from "node:fs";
import { generateFleet } from "./generate-fleet.js";

const services = Number(process.argv[2] ?? "1000");
const text = generateFleet({ services });
if (process.argv[3] === undefined) process.stdout.write(text);
else writeFileSync(process.argv[3], text);

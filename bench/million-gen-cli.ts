/**
 * `node dist/bench/million-gen-cli.js HOSTS FILE [ACTIVE_EVERY]`: writes bench/million-fleet.ts's
 * document (HOSTS × 10 services) to FILE, for profiling `lookout validate` by hand.
 */
import { writeFileSync } from "node:fs";
import { millionFleet } from "./million-fleet.js";

const hosts = Number(process.argv[2] ?? "100000");
const file = process.argv[3] ?? "million.cue";
const activeEvery = Number(process.argv[4] ?? "100");
writeFileSync(file, millionFleet({ hosts, activeEvery }));

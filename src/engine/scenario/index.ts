/**
 * The scenario language of the state engine: promqltest-style text files
 * (src/engine/testdata/*.txt) that a Nagios user can read — `at 30s result web/http critical`,
 * `expect web/http CRITICAL SOFT 2/3` — run by scenario.test.ts. docs/states.md describes the
 * statements. Test support only; nothing in the product imports it.
 */
export { buildConfig } from "./config-builder.js";
export { runScenario, SCENARIO_T0, type ScenarioExtension, type ScenarioFailure } from "./runner.js";
export { keyValue, objectKeyOf, objectWord, parseDuration, tokenize } from "./tokens.js";

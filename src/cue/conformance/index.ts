/**
 * The CUE conformance runner: reads cue's own evaluator tests (txtar archives of `cue/testdata`),
 * runs each archive against the engine in a worker with a time budget, and counts per directory
 * the assertions that passed, failed, or cannot be checked through the engine's API (unsupported).
 * `main.ts` is the command line; `docs/cue.md` explains what is checked.
 */

export { runCorpusIsolated } from "./isolated.js";
export { type ArchiveResult, listArchives, runArchive, type Totals, totalsByDir } from "./runner.js";
export { parseTxtar, type Txtar, type TxtarFile } from "./txtar.js";

/**
 * Entry module of the store's writer thread: binds the state engine to the store's writer, and
 * the decoder of passive results that arrive in their API wire form. Core starts it through
 * Store.open (src/core/core.ts).
 */
import { runWriterThread } from "../store/writer-thread.js";
import { encodedResults } from "./encoded-results.js";
import { engineMachines } from "./engine-machines.js";

runWriterThread(engineMachines, encodedResults);

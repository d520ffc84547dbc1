/**
 * Entry module of the store's writer thread: binds the state engine to the store's writer. Core
 * starts it through Store.open (src/core/core.ts).
 */
import { runWriterThread } from "../store/writer-thread.js";
import { engineMachines } from "./engine-machines.js";

runWriterThread(engineMachines);

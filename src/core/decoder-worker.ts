/**
 * Entry module of the writer's decoding thread (src/store/decode-ahead.ts): passive results that
 * reach the writer in their API wire form are decoded here, and their plugin output parsed, while
 * the writer applies and commits what came before them.
 */
import { runDecoderThread } from "../store/decoder-thread.js";
import { encodedResultsAhead } from "./encoded-results.js";

runDecoderThread(encodedResultsAhead);

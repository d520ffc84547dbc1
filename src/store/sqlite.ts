import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

const require = createRequire(import.meta.url);

/**
 * The SQLite driver for this runtime. better-sqlite3 12 (a classic addon, built from source) runs
 * on Node 20 and 22 but aborts at thread or process exit on Node 24, whose `node::ObjectWrap`
 * destructor asserts once the environment is gone (WiseLibs/better-sqlite3#1515). better-sqlite3 13
 * is a Node-API rewrite that fixes that, ships prebuilt binaries, and needs Node 22 or later. Both
 * are installed (13 under the alias `better-sqlite3-napi`) and the one that fits is loaded; their
 * JavaScript API is the same.
 */
export const Database: typeof BetterSqlite3 =
  Number(process.versions.node.split(".")[0]) >= 22
    ? (require("better-sqlite3-napi") as typeof BetterSqlite3)
    : (require("better-sqlite3") as typeof BetterSqlite3);
export type Database = BetterSqlite3.Database;
export type Statement<P extends unknown[] | object = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;

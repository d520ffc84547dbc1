import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The dashboard's build: everything bundled from this folder into dist/web, hashed names under
// assets/ (the server caches those as immutable), no external fetches at runtime.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../../../dist/web", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    assetsInlineLimit: 0,
    reportCompressedSize: true,
  },
});

/**
 * The dashboard. Its browser code lives in `app/` (built by Vite into dist/web, typechecked by its
 * own tsconfig) and talks to Lookout only through the generated Connect client, like any other
 * client. This module is the server's side of it: the built files served from memory
 * (`createStaticSite`), and the placeholder page `/` shows when no build exists.
 */
export { placeholderPage } from "./placeholder.js";
export { createStaticSite, DEFAULT_WEB_DIR, type StaticAnswer, type StaticSite } from "./static-site.js";

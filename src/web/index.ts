/**
 * The dashboard. It talks to Lookout only through the generated API client, like any other
 * client; for now it is a placeholder page.
 */
export { placeholderPage } from "./placeholder.js";

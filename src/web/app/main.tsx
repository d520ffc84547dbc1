/**
 * The dashboard's entry point (Vite builds it into dist/web). Preact renders it: about 5 KB
 * gzip'd with hooks, so almost all of the bundle is the generated Connect client and its
 * protobuf runtime.
 */
import { render } from "preact";
import { App } from "./app.js";
import "./style.css";

const root = document.getElementById("root");
if (root !== null) {
  root.textContent = "";
  render(<App />, root);
}

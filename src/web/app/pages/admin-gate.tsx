import type { ComponentChildren } from "preact";
import type { Access } from "../access.js";
import { href } from "../router.js";

/** Shows the admin page's content only when AdminService answers; otherwise says why not. */
export function AdminGate(props: { access: Access["admin"]; children: ComponentChildren }) {
  switch (props.access) {
    case "yes":
      return <>{props.children}</>;
    case "unknown":
      return <p class="muted">Asking the server…</p>;
    case "login":
      return (
        <p class="notice">
          This page needs an admin identity. <a href={href("login")}>Sign in</a>.
        </p>
      );
    case "denied":
      return <p class="notice">Your role is not admin: the config and the audit list are for admins only.</p>;
    case "unavailable":
      return (
        <p class="notice" data-testid="admin-unavailable">
          Not available: this server does not offer AdminService (it is mounted only with -auth-config and
          without -read-only, and needs a build where it is implemented).
        </p>
      );
    default:
      return unreachable(props.access);
  }
}

function unreachable(x: never): never {
  throw new Error(`unexpected ${String(x)}`);
}

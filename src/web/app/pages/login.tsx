import { useState } from "preact/hooks";
import { token } from "../api.js";

/**
 * Sign in with an identity token (or the -api-token). The token goes in an Authorization: Bearer
 * header on every call and is kept in this tab's sessionStorage only; signing out forgets it.
 */
export function LoginPage() {
  const [value, setValue] = useState("");
  return (
    <section aria-labelledby="login-title" class="narrow">
      <h1 id="login-title">Sign in</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          token.set(value.trim());
          location.hash = "#/";
        }}
      >
        <label>
          Token
          <input
            type="password"
            name="token"
            autoComplete="current-password"
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
            required
          />
        </label>
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
      <p class="muted small">
        The server resolves the token to an identity and its role (viewer, operator, admin); the dashboard
        offers only what that role may do.
      </p>
    </section>
  );
}

import { useState } from "preact/hooks";
import { login, token } from "../api.js";

/**
 * Sign in with a name and password (a session cookie, docs/auth.md) or with an identity token (or
 * the -api-token): the token goes in an Authorization: Bearer header on every call and is kept in
 * this tab's sessionStorage only. Signing out ends the session and forgets the token.
 */
export function LoginPage() {
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  return (
    <section aria-labelledby="login-title" class="narrow">
      <h1 id="login-title">Sign in</h1>
      <form
        aria-label="Sign in with a name and password"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          const failed = await login(name.trim(), password);
          setBusy(false);
          setError(failed);
          if (failed === undefined) location.hash = "#/";
        }}
      >
        <label>
          Name
          <input
            type="text"
            name="username"
            autoComplete="username"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            required
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            required
          />
        </label>
        {error !== undefined && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
      <details>
        <summary>Sign in with a token instead</summary>
        <form
          aria-label="Sign in with a token"
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
              autoComplete="off"
              value={value}
              onInput={(e) => setValue(e.currentTarget.value)}
              required
            />
          </label>
          <button type="submit">Sign in with the token</button>
        </form>
      </details>
      <p class="muted small">
        The server resolves the identity to its role (viewer, operator, admin); the dashboard offers only what
        that role may do.
      </p>
    </section>
  );
}

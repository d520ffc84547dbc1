/** A role, lowest to highest: `viewer` reads, `operator` also writes commands, `admin` also changes the config. */
export type Role = "viewer" | "operator" | "admin";

/** The roles in the identities document's spelling. */
export const ROLES: readonly Role[] = ["viewer", "operator", "admin"];

/** Whether a string is one of the roles. */
export function isRole(s: unknown): s is Role {
  return s === "viewer" || s === "operator" || s === "admin";
}

function rank(r: Role): number {
  switch (r) {
    case "viewer":
      return 1;
    case "operator":
      return 2;
    case "admin":
      return 3;
    default: {
      const never: never = r;
      throw new Error(`unknown role ${String(never)}`);
    }
  }
}

/** Whether `have` is `want` or a role above it. */
export function roleAtLeast(have: Role, want: Role): boolean {
  return rank(have) >= rank(want);
}

/** Who sent a request: an identity of the document, or the holder of -api-token. */
export interface Principal {
  readonly name: string;
  readonly role: Role;
  /**
   * Set when the principal was resolved from a dashboard session cookie (someone signed in with
   * their password), not from a bearer token: commands then carry this name as their author.
   */
  readonly signedIn?: true;
}

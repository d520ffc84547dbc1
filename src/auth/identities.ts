import { type ConfigDiagnostic, formatPath, sortDiagnostics } from "../config/diagnostic.js";
import { createLocator } from "../config/locate.js";
import { compile } from "../cue/index.js";
import { isPasswordHash } from "./password.js";
import { isRole, type Principal, type Role } from "./roles.js";

/** One identity of the document. */
export interface Identity extends Principal {
  /** Lowercase hex SHA-256 of its bearer token, if it has one. */
  readonly tokenSha256?: string;
  /** Its password hash (password.ts form), if it may log in. */
  readonly password?: string;
}

/** The identities in force: by name (logins, sessions) and by token digest (bearer tokens). */
export interface Identities {
  readonly byName: ReadonlyMap<string, Identity>;
  readonly byToken: ReadonlyMap<string, Identity>;
}

/** No identity at all: what an empty document gives. */
export const NO_IDENTITIES: Identities = { byName: new Map(), byToken: new Map() };

export type LoadIdentitiesResult =
  | { readonly ok: true; readonly identities: Identities }
  | { readonly ok: false; readonly diagnostics: readonly ConfigDiagnostic[] };

/** The shape of the document; closed, so a misspelt field is an error rather than ignored. */
const SCHEMA = `#Identities: {
	identities?: [Name=string]: {
		role!:         string
		token_sha256?: =~"^[0-9a-f]{64}$"
		password?:     string
	}
}
`;

/** An identity's name: what audit records and logs show, so nothing that needs quoting. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

/**
 * Loads the identities document (-auth-config): CUE unified with the closed shape above, then the
 * checks CUE cannot make (a name's form, a password that is not a hash, a token used twice). Every
 * problem is a diagnostic at file:line:column, as for the main config. Never throws; small enough
 * to run on the calling thread.
 */
export function loadIdentities(file: string, text: string): LoadIdentitiesResult {
  try {
    const schema = compile([{ name: "identities-schema.cue", text: SCHEMA }]);
    const user = compile([{ name: file, text }]);
    const raw = user.errors.length === 0 ? user.export() : undefined;
    const locator = createLocator(
      raw?.ok ? raw.data : undefined,
      raw?.ok ? raw.positions : undefined,
      file,
      text,
    );
    const fromCue = (errors: typeof user.errors): LoadIdentitiesResult =>
      fail(
        errors.map((e) => {
          const pos = e.positions.find((p) => p.file === file) ?? locator.at(e.path);
          const message = e.path.length === 0 ? e.message : `${formatPath(e.path)}: ${e.message}`;
          return { message, file, line: pos.line, column: pos.column };
        }),
      );
    if (user.errors.length > 0) return fromCue(user.errors);
    const root = schema.lookup(["#Identities"]);
    if (root === undefined) throw new Error("identities schema has no #Identities");
    const exported = root.unify(user).export();
    if (!exported.ok) return fromCue(exported.errors);
    return decode(exported.data, createLocator(exported.data, exported.positions, file, text));
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return fail([
      { message: `internal error while loading the identities: ${message}`, file, line: 1, column: 1 },
    ]);
  }
}

function decode(data: unknown, locator: ReturnType<typeof createLocator>): LoadIdentitiesResult {
  const diagnostics: ConfigDiagnostic[] = [];
  const problem = (path: (string | number)[], message: string) => {
    const at = locator.at(path);
    diagnostics.push({ message: `${formatPath(path)}: ${message}`, ...at });
  };
  const byName = new Map<string, Identity>();
  const byToken = new Map<string, Identity>();
  const tokenOwner = new Map<string, string>();
  const doc = (data ?? {}) as { identities?: Record<string, Record<string, unknown>> };
  for (const [name, v] of Object.entries(doc.identities ?? {})) {
    const path = ["identities", name];
    if (!NAME.test(name)) {
      problem(
        path,
        "a name is 1 to 64 letters, digits, '_', '.', '@' or '-', starting with a letter or digit",
      );
    }
    const role = v.role;
    if (!isRole(role)) {
      problem([...path, "role"], `unknown role ${JSON.stringify(role)}: viewer, operator or admin`);
      continue;
    }
    const token = typeof v.token_sha256 === "string" ? v.token_sha256 : undefined;
    const password = typeof v.password === "string" ? v.password : undefined;
    if (password !== undefined && !isPasswordHash(password)) {
      problem(
        [...path, "password"],
        "not a password hash: write the output of `lookout auth hash-password` ($scrypt$ln=..,r=..,p=..$salt$key), never the password itself",
      );
    }
    if (token !== undefined) {
      const other = tokenOwner.get(token);
      if (other !== undefined) {
        problem(
          [...path, "token_sha256"],
          `the same token as identity ${JSON.stringify(other)}: every token names one identity`,
        );
      }
      tokenOwner.set(token, name);
    }
    const identity: Identity = {
      name,
      role: role as Role,
      ...(token === undefined ? {} : { tokenSha256: token }),
      ...(password === undefined ? {} : { password }),
    };
    byName.set(name, identity);
    if (token !== undefined) byToken.set(token, identity);
  }
  if (diagnostics.length > 0) return fail(diagnostics);
  return { ok: true, identities: { byName, byToken } };
}

function fail(diagnostics: readonly ConfigDiagnostic[]): LoadIdentitiesResult {
  return { ok: false, diagnostics: sortDiagnostics(diagnostics) };
}

/**
 * Identities and roles: the identities document (-auth-config, CUE, loaded with the main config's
 * diagnostics), scrypt password hashes, bearer token digests, signed session cookies, the failed
 * login throttle, and the one gate every API route and fast path asks (gate.ts). It knows nothing
 * of Connect: the API turns its answers into codes. See docs/auth.md.
 */

export { type ClientAddress, createClientAddress, trustedProxyProblem } from "./client-address.js";
export {
  API_TOKEN_PRINCIPAL,
  type AuthGate,
  type Credentials,
  createAuthGate,
  type GateAnswer,
  requiredRole,
  type Surface,
} from "./gate.js";
export {
  type Identities,
  type Identity,
  type LoadIdentitiesResult,
  loadIdentities,
  NO_IDENTITIES,
} from "./identities.js";
export { hashPassword, isPasswordHash, verifyPassword } from "./password.js";
export { isRole, type Principal, ROLES, type Role, roleAtLeast } from "./roles.js";
export {
  cookieValue,
  createSessions,
  MIN_SESSION_SECRET_BYTES,
  randomSessionSecret,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  type SessionClaims,
  type Sessions,
  sessionSecretProblem,
} from "./session.js";
export {
  createLoginThrottle,
  FAILED_LOGINS_PER_ACCOUNT_PER_WINDOW,
  FAILED_LOGINS_PER_WINDOW,
  type LoginThrottle,
  THROTTLE_WINDOW_MS,
  type ThrottleVerdict,
} from "./throttle.js";
export { bearerToken, mintToken, tokenSha256 } from "./token.js";

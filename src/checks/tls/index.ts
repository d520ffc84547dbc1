/**
 * The `tls` check type: an in-process TLS handshake that judges the server's certificate by its
 * expiry (`warn_within`, `crit_within`), its chain and its host name, like check_ssl_cert. See
 * docs/checks.md.
 */
export { createTlsChecker, type TlsCheckerOptions } from "./tls-checker.js";

/**
 * Real local peers for tests of network checks: TCP listeners (open, silent, a black hole whose
 * connects never complete), HTTP/HTTPS servers with fixed routes, TLS servers, Debian's nginx with a config of the test's own, dnsmasq and stub
 * DNS servers, a throwaway PKI made with the openssl CLI, NATS operator/account/user JWTs made
 * with nkeys, and a network namespace for "no reply".
 * Everything listens on loopback ports picked by the kernel, or lives in a namespace the test
 * made; child processes are stopped by PID.
 */
export * from "./certs.js";
export * from "./dns.js";
export * from "./http.js";
export * from "./nats.js";
export * from "./nats-jwt.js";
export * from "./netns.js";
export * from "./nginx.js";
export * from "./peer.js";
export * from "./tcp.js";
export * from "./tls.js";

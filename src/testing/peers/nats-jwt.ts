import { createHash } from "node:crypto";
import { nkeys } from "@nats-io/transport-node";

/**
 * NATS decentralized auth for tests, without `nsc` (Debian does not ship it): an operator, a system
 * account, one account with JetStream and its users, as JWTs signed with nkeys in the format nats-server reads
 * (header `{"typ":"JWT","alg":"ed25519-nkey"}`, base64url, an ed25519 signature of
 * `header.payload`), and the users' creds files. `serverConfig()` is the nats-server config lines
 * of operator mode with a memory resolver preloaded with the account.
 */
export interface NatsOperator {
  /** Lines for the nats-server config (`operator`, `resolver: MEMORY`, `resolver_preload`). */
  serverConfig(): string;
  /** A creds file's text for a new user of the account: everything allowed, or these subjects. */
  userCreds(name: string, permissions?: { publish: readonly string[]; subscribe: readonly string[] }): string;
}

const b64url = (x: Uint8Array | string): string => Buffer.from(x).toString("base64url");

type KeyPair = ReturnType<typeof nkeys.createOperator>;

function signed(issuer: KeyPair, subject: string, name: string, nats: Record<string, unknown>): string {
  const header = b64url(JSON.stringify({ typ: "JWT", alg: "ed25519-nkey" }));
  const claims: Record<string, unknown> = {
    iat: Math.floor(Date.now() / 1000),
    iss: issuer.getPublicKey(),
    name,
    sub: subject,
    nats: { ...nats, version: 2 },
  };
  // jti: an id of the claims, as nsc makes it (the server does not check it).
  claims.jti = createHash("sha256").update(JSON.stringify(claims)).digest("base64url").slice(0, 52);
  const payload = b64url(JSON.stringify(claims));
  const sig = issuer.sign(new TextEncoder().encode(`${header}.${payload}`));
  return `${header}.${payload}.${b64url(sig)}`;
}

/** A fresh operator and account (JetStream without limits). */
export function createNatsOperator(): NatsOperator {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  const system = nkeys.createAccount();
  const operatorJwt = signed(operator, operator.getPublicKey(), "lookout-test", {
    type: "operator",
    system_account: system.getPublicKey(),
  });
  const unlimited = {
    subs: -1,
    data: -1,
    payload: -1,
    imports: -1,
    exports: -1,
    wildcards: true,
    conn: -1,
    leaf: -1,
  };
  const accountJwt = signed(operator, account.getPublicKey(), "lookout", {
    type: "account",
    limits: { ...unlimited, mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 },
  });
  // JetStream needs a system account in operator mode.
  const systemJwt = signed(operator, system.getPublicKey(), "SYS", { type: "account", limits: unlimited });
  return {
    serverConfig: () =>
      [
        `operator: ${operatorJwt}`,
        `system_account: ${system.getPublicKey()}`,
        "resolver: MEMORY",
        `resolver_preload: { ${account.getPublicKey()}: ${accountJwt}, ${system.getPublicKey()}: ${systemJwt} }`,
      ].join("\n"),
    userCreds(name, permissions) {
      const user = nkeys.createUser();
      const jwt = signed(account, user.getPublicKey(), name, {
        type: "user",
        subs: -1,
        data: -1,
        payload: -1,
        ...(permissions === undefined
          ? {}
          : { pub: { allow: [...permissions.publish] }, sub: { allow: [...permissions.subscribe] } }),
      });
      const seed = new TextDecoder().decode(user.getSeed());
      return (
        `-----BEGIN NATS USER JWT-----\n${jwt}\n------END NATS USER JWT------\n\n` +
        "************************* IMPORTANT *************************\n" +
        "NKEY Seed printed below can be used to sign and prove identity.\n\n" +
        `-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`
      );
    },
  };
}

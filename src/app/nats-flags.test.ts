import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { type Auth, type Authenticator, nkeys } from "@nats-io/transport-node";
import { natsConnectOptions } from "../zones/index.js";
import { parseFlags } from "./flags.js";
import { decodeNatsAuth, NATS_AUTH_FLAGS } from "./nats-flags.js";
import { SERVER_FLAGS } from "./server-flags.js";
import { WORKER_FLAGS } from "./worker-command.js";

const dir = mkdtempSync(join(tmpdir(), "lookout-nats-flags-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

/** A creds file as nsc writes it: a (here unsigned) user JWT and the user's nkey seed. */
const user = nkeys.createUser();
const JWT = "eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln";
const creds = file(
  "u.creds",
  `-----BEGIN NATS USER JWT-----\n${JWT}\n------END NATS USER JWT------\n\n` +
    "************************* IMPORTANT *************************\n\n" +
    `-----BEGIN USER NKEY SEED-----\n${new TextDecoder().decode(user.getSeed())}\n------END USER NKEY SEED------\n`,
);
const password = file("pw", "s3cret-from-file\n");
const pem = file("ca.pem", "-----BEGIN CERTIFICATE-----\n");

function decode(args: string[], env: Record<string, string> = {}) {
  const parsed = parseFlags(NATS_AUTH_FLAGS, args, env);
  assert.ok(parsed.ok);
  return decodeNatsAuth(parsed.values, env);
}

/** What the connection's authenticators send for a nonce. */
function sent(auth: Authenticator | Authenticator[] | undefined, nonce = "n0nce"): Auth {
  const all = auth === undefined ? [] : Array.isArray(auth) ? auth : [auth];
  return Object.assign({}, ...all.map((a) => a(nonce))) as Auth;
}

test("both commands take the NATS auth flags", () => {
  for (const specs of [SERVER_FLAGS, WORKER_FLAGS]) {
    const names = new Set(specs.map((s) => s.name));
    for (const f of NATS_AUTH_FLAGS) assert.ok(names.has(f.name), f.name);
  }
  // No flag takes the password itself: it would show in `ps`.
  assert.ok(!NATS_AUTH_FLAGS.some((f) => f.name === "nats-password"));
});

test("NATS auth flags become the connection's authenticator and TLS files", () => {
  const cases: {
    name: string;
    args: string[];
    env?: Record<string, string>;
    want: Record<string, unknown>;
    tls?: Record<string, string>;
  }[] = [
    { name: "nothing", args: [], want: {} },
    {
      name: "user, password from a file",
      args: ["-nats-user", "w1", "-nats-password-file", password],
      want: { user: "w1", pass: "s3cret-from-file" },
    },
    {
      name: "user, password from the environment",
      args: ["-nats-user", "w1"],
      env: { LOOKOUT_NATS_PASSWORD: "from-env" },
      want: { user: "w1", pass: "from-env" },
    },
    {
      name: "user from the environment, password file wins over the environment",
      args: ["-nats-password-file", password],
      env: { LOOKOUT_NATS_USER: "w2", LOOKOUT_NATS_PASSWORD: "ignored" },
      want: { user: "w2", pass: "s3cret-from-file" },
    },
    { name: "creds", args: ["-nats-creds", creds], want: { jwt: JWT, nkey: user.getPublicKey() } },
    {
      name: "TLS: a CA and a client certificate",
      args: ["-nats-tls-ca", pem, "-nats-tls-cert", pem, "-nats-tls-key", pem],
      want: {},
      tls: { caFile: pem, certFile: pem, keyFile: pem },
    },
    { name: "TLS: a CA only", args: ["-nats-tls-ca", pem], want: {}, tls: { caFile: pem } },
  ];
  for (const c of cases) {
    const d = decode(c.args, c.env);
    assert.ok(d.ok, `${c.name}: ${d.ok ? "" : d.error}`);
    const o = natsConnectOptions("nats://127.0.0.1:4222", "t", d.auth);
    const got = sent(o.authenticator);
    const { sig, ...rest } = got as Auth & { sig?: string };
    assert.deepEqual(rest, c.want, c.name);
    if ("jwt" in c.want) {
      // The creds' seed signed the server's nonce.
      assert.ok(
        sig !== undefined && user.verify(new TextEncoder().encode("n0nce"), nkeys.decode(sig)),
        c.name,
      );
    }
    assert.deepEqual(o.tls, c.tls, c.name);
    assert.ok(!JSON.stringify(o).includes("s3cret"), `${c.name}: the password is not in the plain options`);
  }
});

test("NATS auth flags refused with a clear error that holds no secret", () => {
  const notCreds = file("bad.creds", "password=hunter2\n");
  const cases: { args: string[]; env?: Record<string, string>; error: RegExp }[] = [
    {
      args: ["-nats-creds", creds, "-nats-user", "w1"],
      error: /-nats-creds and -nats-user exclude each other/,
    },
    { args: ["-nats-creds", join(dir, "missing")], error: /-nats-creds .*missing: ENOENT/ },
    { args: ["-nats-creds", notCreds], error: /not a NATS credentials file/ },
    { args: ["-nats-password-file", password], error: /needs -nats-user/ },
    { args: [], env: { LOOKOUT_NATS_PASSWORD: "x" }, error: /needs -nats-user/ },
    {
      args: ["-nats-user", "w", "-nats-password-file", join(dir, "nope")],
      error: /-nats-password-file: ENOENT/,
    },
    { args: ["-nats-tls-cert", pem], error: /-nats-tls-cert and -nats-tls-key go together/ },
    { args: ["-nats-tls-ca", join(dir, "no-ca")], error: /-nats-tls-ca .*no-ca: ENOENT/ },
  ];
  for (const c of cases) {
    const d = decode(c.args, c.env);
    assert.ok(!d.ok, c.args.join(" "));
    assert.match(d.error, c.error);
    assert.ok(!/hunter2|s3cret/.test(d.error), d.error);
  }
});

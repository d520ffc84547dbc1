import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { TlsProbe } from "../../model/config.js";
import { assertWellFormed, checkTarget } from "../../testing/check-contract.js";
import { testPki } from "../../testing/peers/certs.js";
import { type NginxPeer, startNginx } from "../../testing/peers/nginx.js";
import { createTlsChecker } from "./index.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The tls check's `ca_file`, `verify` and `sni` against Debian's nginx: two name-based servers on
 * one port with certificates from a private CA the test made (a.test for 30 days, the default;
 * b.test for 10), and a self-signed server.
 */
describe("tls check against nginx", () => {
  const pki = testPki();
  let nginx: NginxPeer;
  let port = 0;
  let selfPort = 0;
  let caFile = "";

  before(async () => {
    const { closedTcpPort } = await import("../../testing/peers/tcp.js");
    port = await closedTcpPort();
    selfPort = await closedTcpPort();
    const a = pki.issue({ names: ["a.test", "127.0.0.1"], days: 30 });
    const b = pki.issue({ names: ["b.test"], days: 10 });
    const self = pki.issue({ names: ["127.0.0.1"], days: 30, selfSigned: true });
    nginx = await startNginx([port, selfPort], (dir) => {
      for (const [n, c] of Object.entries({ a, b, self })) {
        writeFileSync(join(dir, `${n}.pem`), c.cert);
        writeFileSync(join(dir, `${n}.key`), c.key);
      }
      writeFileSync(join(dir, "ca.pem"), pki.ca);
      const server = (listen: number, name: string, cert: string) => `
  server {
    listen 127.0.0.1:${listen} ssl;
    server_name ${name};
    ssl_certificate ${join(dir, `${cert}.pem`)};
    ssl_certificate_key ${join(dir, `${cert}.key`)};
    location / { return 200 "${cert}\\n"; }
  }`;
      return server(port, "a.test", "a") + server(port, "b.test", "b") + server(selfPort, "_", "self");
    });
    caFile = join(nginx.dir, "ca.pem");
  });
  after(async () => {
    await nginx?.stop();
  });

  const probe = (extra: Partial<TlsProbe> = {}, p = () => port): TlsProbe => ({
    type: "tls",
    address: `127.0.0.1:${p()}`,
    warnWithinMs: 14 * DAY,
    critWithinMs: 3 * DAY,
    ...extra,
  });

  const cases: {
    name: string;
    probe: () => TlsProbe;
    /** Where the checker's clock stands, relative to now. */
    shiftMs?: number;
    status: number;
    output: RegExp;
    days?: number;
  }[] = [
    {
      name: "private CA trusted through ca_file",
      probe: () => probe({ caFile }),
      status: 0,
      output:
        /^SSL_CERT OK - 127\.0\.0\.1 port \d+: certificate 'a\.test' from 'Lookout Test CA' valid until .*, expires in 29 days$/,
      days: 29,
    },
    {
      name: "private CA without ca_file",
      probe: () => probe(),
      status: 2,
      output:
        /, chain not trusted: unable to verify the first certificate \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/,
      days: 29,
    },
    {
      name: "verify false: a private CA's certificate judged by expiry only",
      probe: () => probe({ verify: false }),
      status: 0,
      output: /^SSL_CERT OK - .*, expires in 29 days$/,
      days: 29,
    },
    {
      name: "self-signed is not trusted through ca_file",
      probe: () => probe({ caFile }, () => selfPort),
      status: 2,
      output: /chain not trusted: self-signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/,
    },
    {
      name: "verify false: a self-signed certificate judged by expiry only",
      probe: () => probe({ verify: false }, () => selfPort),
      status: 0,
      output:
        /^SSL_CERT OK - 127\.0\.0\.1 port \d+: certificate '127\.0\.0\.1' from '127\.0\.0\.1' .*, expires in 29 days$/,
    },
    {
      name: "verify false still sees an expired certificate",
      probe: () => probe({ verify: false }, () => selfPort),
      shiftMs: 31 * DAY,
      status: 2,
      output: /^SSL_CERT CRITICAL - .*, expired 2[45]\.\d hours ago$/,
      days: -1,
    },
    {
      name: "verify false does not look at names either",
      probe: () => probe({ verify: false, sni: "b.test" }, () => selfPort),
      status: 0,
      output: /^SSL_CERT OK - /,
    },
    {
      name: "sni selects the server block, whose certificate is judged",
      probe: () => probe({ caFile, sni: "b.test" }),
      status: 1,
      output:
        /^SSL_CERT WARNING - 127\.0\.0\.1 port \d+: certificate 'b\.test' from 'Lookout Test CA' .*, expires in 9 days$/,
      days: 9,
    },
    {
      name: "sni is the name the certificate must carry",
      probe: () => probe({ caFile, sni: "c.test" }),
      status: 2,
      output:
        /certificate 'a\.test' .*, does not match c\.test \(certificate names DNS:a\.test, IP:127\.0\.0\.1\)$/,
    },
    {
      // 10 days and nearly 12 hours left: whole days, rounded down, in the output and the perfdata.
      name: "days are whole days alike in output and perfdata",
      probe: () => probe({ caFile, warnWithinMs: 3 * DAY }),
      shiftMs: 19 * DAY + 12 * HOUR,
      status: 0,
      output: /^SSL_CERT OK - .*, expires in 10 days$/,
      days: 10,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const checker = createTlsChecker({ now: () => Date.now() + (c.shiftMs ?? 0) });
      const o = await checker.run(checkTarget(c.probe()), AbortSignal.timeout(5_000));
      assertWellFormed(o, c.name);
      assert.equal(o.exitStatus, c.status, `${o.output}\n${nginx.errorLog()}`);
      assert.match(o.output, c.output);
      if (c.days !== undefined) assert.equal(o.perfdata.find((p) => p.label === "days")?.value, c.days);
    });
  }

  it("a ca_file that went away since the config was loaded is UNKNOWN", async () => {
    const o = await createTlsChecker().run(
      checkTarget(probe({ caFile: join(nginx.dir, "missing.pem") })),
      AbortSignal.timeout(5_000),
    );
    assert.equal(o.exitStatus, 3);
    assert.match(
      o.output,
      /^SSL_CERT UNKNOWN - cannot read ca_file ".*missing\.pem": No such file or directory$/,
    );
  });
});

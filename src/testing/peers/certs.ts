import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A PEM certificate (the leaf, then any chain) and its PEM private key. */
export interface TestCert {
  readonly cert: string;
  readonly key: string;
}

/** What a test asks for: who the certificate names and how long it has left. */
export interface CertSpec {
  /** Subject alternative names: IP literals become `IP:`, anything else `DNS:`. */
  readonly names: readonly string[];
  /** Days from now until notAfter; -1 for a certificate that expired a day ago (openssl's limit). */
  readonly days: number;
  /** Self-signed instead of issued by the test CA. */
  readonly selfSigned?: boolean;
  /**
   * Issued by an intermediate CA (under the test root) that expires in this many days; the
   * certificate PEM then holds the leaf followed by the intermediate, as servers send it.
   */
  readonly intermediateDays?: number;
  /** A client certificate (extendedKeyUsage clientAuth) instead of a server's. */
  readonly client?: boolean;
}

/** A throwaway certificate authority for one test process, and the leaves it issued. */
export interface TestPki {
  /** The CA certificate (PEM), to hand a checker as its trusted roots. */
  readonly ca: string;
  issue(spec: CertSpec): TestCert;
  /** Removes the temporary directory. */
  dispose(): void;
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

let shared: TestPki | undefined;

/**
 * The process's test PKI, created on first use with the `openssl` CLI (P-256 keys, so each
 * certificate costs a few milliseconds). Leaves are cached by spec for the whole run; the
 * directory is removed when the process exits.
 */
export function testPki(): TestPki {
  if (shared === undefined) {
    shared = createPki();
    const pki = shared;
    process.once("exit", () => pki.dispose());
  }
  return shared;
}

function createPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), "lookout-pki-"));
  const p = (name: string) => join(dir, name);
  openssl([
    "req",
    "-x509",
    ...EC,
    "-keyout",
    p("ca.key"),
    "-out",
    p("ca.pem"),
    "-days",
    "3650",
    "-subj",
    "/CN=Lookout Test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  const ca = readFileSync(p("ca.pem"), "utf8");
  const cache = new Map<string, TestCert>();
  let serial = 1;
  const intermediates = new Map<number, { certPath: string; keyPath: string; pem: string }>();
  const intermediate = (days: number) => {
    const hit = intermediates.get(days);
    if (hit !== undefined) return hit;
    const n = serial++;
    writeFileSync(
      p(`${n}.ext`),
      "basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n",
    );
    openssl([
      "req",
      "-new",
      ...EC,
      "-keyout",
      p(`${n}.key`),
      "-subj",
      `/CN=Lookout Test Intermediate ${n}`,
      "-out",
      p(`${n}.csr`),
    ]);
    openssl([
      "x509",
      "-req",
      "-in",
      p(`${n}.csr`),
      "-CA",
      p("ca.pem"),
      "-CAkey",
      p("ca.key"),
      "-set_serial",
      String(1000 + n),
      "-days",
      String(days),
      "-extfile",
      p(`${n}.ext`),
      "-out",
      p(`${n}.pem`),
    ]);
    const made = {
      certPath: p(`${n}.pem`),
      keyPath: p(`${n}.key`),
      pem: readFileSync(p(`${n}.pem`), "utf8"),
    };
    intermediates.set(days, made);
    return made;
  };

  return {
    ca,
    issue(spec) {
      if (!Number.isInteger(spec.days) || spec.days < -1)
        throw new RangeError(`days must be an integer >= -1`);
      const id = JSON.stringify(spec);
      const hit = cache.get(id);
      if (hit !== undefined) return hit;
      const n = serial++;
      const san = spec.names
        .map((name) => (/^[0-9.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`))
        .join(",");
      const cn = spec.names[0] ?? "lookout-test";
      writeFileSync(
        p(`${n}.ext`),
        `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=${spec.client === true ? "clientAuth" : "serverAuth"}\n`,
      );
      openssl(["req", "-new", ...EC, "-keyout", p(`${n}.key`), "-subj", `/CN=${cn}`, "-out", p(`${n}.csr`)]);
      const int = spec.intermediateDays === undefined ? undefined : intermediate(spec.intermediateDays);
      const signer = spec.selfSigned
        ? ["-key", p(`${n}.key`)]
        : int !== undefined
          ? ["-CA", int.certPath, "-CAkey", int.keyPath]
          : ["-CA", p("ca.pem"), "-CAkey", p("ca.key")];
      openssl([
        "x509",
        "-req",
        "-in",
        p(`${n}.csr`),
        ...signer,
        "-set_serial",
        String(1000 + n),
        // openssl takes negative days too: notAfter lands before now, an expired certificate.
        "-days",
        String(spec.days),
        "-extfile",
        p(`${n}.ext`),
        "-out",
        p(`${n}.pem`),
      ]);
      const cert: TestCert = {
        cert: readFileSync(p(`${n}.pem`), "utf8") + (int === undefined ? "" : int.pem),
        key: readFileSync(p(`${n}.key`), "utf8"),
      };
      cache.set(id, cert);
      return cert;
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function openssl(args: string[]): void {
  execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
}

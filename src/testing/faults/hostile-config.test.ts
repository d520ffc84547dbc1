/**
 * Fault case 7: hostile configuration documents through the AdminService of the real binary. A
 * few lines whose values multiply (`_aN: [_a(N-1), _a(N-1)]`, and the same through definitions,
 * let clauses and structs, used at the top level, in a host's vars or in a service) are submitted
 * in bursts (3 at once in quick mode, 12 in long mode) to ValidateConfig and PlanConfig. Each
 * answer is `invalid_argument` with the budget diagnostic (config/eval-budget.ts) or, past the
 * eight waiting places, `resource_exhausted` (app/admission.ts), never anything else; the server
 * keeps serving; its peak RSS grows by less than the worker's heap limit for such a document (one
 * evaluation at a time). Quick mode 2 bursts, long mode 20 (FAULTS_HOSTILE_BURSTS overrides).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { tokenSha256 } from "../../auth/index.js";
import { evalBudget } from "../../config/index.js";
import { type ServerProcess, startServer } from "../server-process.js";
import { byMode, quantile, reportFigures, rssMiB, seededRandom } from "./harness.js";

const BURSTS = Number(process.env.FAULTS_HOSTILE_BURSTS ?? byMode(2, 20));
const BURST = byMode(3, 12);
const SEED = Number(process.env.FAULTS_SEED ?? Date.now() % 1_000_000);
const TOKEN = "hostile-config-fault-token";

type Form = "list" | "def" | "let" | "struct";
const FORMS: readonly Form[] = ["list", "def", "let", "struct"];
const PLACES = ["top", "vars", "service"] as const;

/** A document of `n` doubling lines in `form`, whose last value is used at `place`. */
function hostile(form: Form, n: number, place: (typeof PLACES)[number]): string {
  const name = (i: number) => (form === "def" ? `#a${i}` : form === "let" ? `A${i}` : `_a${i}`);
  const decl = (i: number, v: string) => (form === "let" ? `let ${name(i)} = ${v}` : `${name(i)}: ${v}`);
  const pair = (i: number) =>
    form === "list" || form === "let" ? `[${name(i)}, ${name(i)}]` : `{l: ${name(i)}, r: ${name(i)}}`;
  const lines = [decl(0, "1")];
  for (let i = 1; i <= n; i++) lines.push(decl(i, pair(i - 1)));
  const last = name(n);
  switch (place) {
    case "top":
      lines.push(`x: ${last}`);
      break;
    case "vars":
      lines.push(`hosts: web: {address: "127.0.0.1", check: {type: "passive"}, vars: {X: ${last}}}`);
      break;
    case "service":
      lines.push(
        `hosts: web: {address: "127.0.0.1", services: s: {check: {type: "passive"}, vars: {X: ${last}}}}`,
      );
      break;
  }
  return `${lines.join("\n")}\n`;
}

describe("fault: hostile configuration documents", () => {
  let dir: string;
  let srv: ServerProcess;
  const served = 'hosts: web: {address: "127.0.0.1", check: {type: "passive", freshness_threshold: "1h"}}\n';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lookout-fault-hostile-"));
    await writeFile(
      join(dir, "auth.cue"),
      `identities: root: {role: "admin", token_sha256: "${tokenSha256(TOKEN)}"}\n`,
    );
    await writeFile(join(dir, "served.cue"), served);
    srv = await startServer([
      "-config",
      join(dir, "served.cue"),
      "-auth-config",
      join(dir, "auth.cue"),
      "-session-secret",
      "hostile-config-fault-session-secret-0123456789",
      "-data-dir",
      join(dir, "data"),
    ]);
  });
  after(async () => {
    const code = await srv.stop();
    await rm(dir, { recursive: true, force: true });
    assert.equal(code, 0, srv.stderr());
  });

  it(`answers ${BURSTS} bursts of ${BURST} with the budget's refusal or resource_exhausted (seed ${SEED})`, async (t) => {
    const call = async (rpc: string, cue: string) => {
      const started = performance.now();
      const res = await fetch(`${srv.url}/svc.v1.AdminService/${rpc}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ cue }),
      });
      const body = (await res.json()) as { code?: string; message?: string };
      return { ms: performance.now() - started, code: body.code ?? "ok", message: body.message ?? "" };
    };
    const random = seededRandom(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const before = rssMiB(srv.child.pid).rss;
    const times: number[] = [];
    const counts: Record<string, number> = {};
    const bad: string[] = [];
    let largest = 0;
    for (let b = 0; b < BURSTS; b++) {
      const docs = Array.from({ length: BURST }, () =>
        hostile(pick(FORMS), 30 + Math.floor(random() * 31), pick(PLACES)),
      );
      for (const d of docs) largest = Math.max(largest, Buffer.byteLength(d));
      const answers = await Promise.all(
        docs.map((d, i) => call(i % 2 === 1 ? "PlanConfig" : "ValidateConfig", d)),
      );
      answers.forEach((a, i) => {
        counts[a.code] = (counts[a.code] ?? 0) + 1;
        if (a.code === "invalid_argument") {
          times.push(a.ms);
          if (!/evaluation budget exceeded/.test(a.message))
            bad.push(`${a.message.slice(0, 300)}\n---\n${docs[i]}`);
        } else if (a.code !== "resource_exhausted") {
          bad.push(`${a.code}: ${a.message.slice(0, 300)}\n---\n${docs[i]}`);
        }
      });
      // Serving on between bursts.
      assert.equal((await call("ValidateConfig", served)).code, "ok");
    }
    assert.deepEqual(bad, [], "every answer is the budget's refusal or resource_exhausted");
    assert.ok((counts.invalid_argument ?? 0) >= BURSTS, JSON.stringify(counts));
    const peak = rssMiB(srv.child.pid).peak;
    const bound = evalBudget(largest).heapMb;
    assert.ok(peak - before < bound, `peak RSS grew by ${Math.round(peak - before)} MiB, over ${bound} MiB`);
    reportFigures(t, "hostile-config", {
      bursts: BURSTS,
      seed: SEED,
      ...counts,
      p50Ms: Math.round(quantile(times, 0.5)),
      maxMs: Math.round(Math.max(...times)),
      rssBeforeMiB: Math.round(before),
      rssPeakMiB: Math.round(peak),
      boundMiB: bound,
    });
  });
});

import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { type CueValue, compile } from "../index.js";
import { setReleaseMinForTesting } from "./export-walk.js";
import { setFastExportForTesting } from "./fast-export.js";
import { vertexOf } from "./instance.js";
import { NEW } from "./vertex.js";

// A schema in the shape of Lookout's: tagged unions with embedded defaults, patterns, defaults
// written several ways, a definition with a self reference, lists of definitions.
const SCHEMA = `
#Duration: string & =~"^[0-9]+(ms|s|m|h)$"
#NonEmpty: string & !=""
#Flap: {enabled: *true | bool, low: (*0.1 | number) & <=high, high: *0.3 | number}
#Schedule: {interval: *"60s" | #Duration, attempts: *3 | int & >=1, flap: #Flap}
#Tcp: {#Schedule, type: "tcp", address!: #NonEmpty}
#Http: {#Schedule, type: "http", url!: #NonEmpty, codes: [...int & >=100 & <600]}
#Dns: {#Schedule, type: "dns", name!: string, server?: #NonEmpty, ...}
#Check: #Tcp | #Http | #Dns
#Labels: {[=~"^[a-z_]+$"]: string & =~"^[a-z0-9]*$"}
#Level: {contacts!: [#NonEmpty, ...#NonEmpty], threshold: *0 | int & >=0}
#Service: {
	check!: #Check
	zone: *"" | string
	labels: #Labels
	weight: *1.0 | float
	tags: [...string]
	level: *"low" | "mid" | "high"
	raw?: bytes
	big: *0 | int
	nothing: *null | string
}
#Host: {
	address!: #NonEmpty
	parents: [...string]
	zone: *"default" | #NonEmpty
	services: {[string]: #Service}
	labels: #Labels
	levels: [...#Level]
	pair: [int, string]
	meta: {...}
}
#Root: {
	hosts!: {[string]: #Host}
	extra?: {[=~"^x"]: int}
}
`;

function root(): CueValue {
  const s = compile([{ name: "schema.cue", text: SCHEMA }]);
  assert.deepEqual(s.errors, []);
  const r = s.lookup(["#Root"]);
  assert.ok(r !== undefined);
  return r;
}

const HOST = `address: "10.0.0.1", pair: [1, "a"]`;

// A schema in the shape of the export benchmark's (bench/gen-cue-fleet.ts), written in the same
// file as the data: a user-level pattern `hosts: [string]: #Host`, service names from a pattern
// alias, regular-expression labels, lists with a rest type, an open definition, a required field,
// and a top-level field named like the alias (which the alias hides inside the pattern).
const FLEET = `
Name: "not a label"
#TCP: {type: "tcp", port: int & >0 & <65536, timeout: *"10s" | string}
#HTTP: {type: "http", url: =~"^https?://", status: *200 | int & >=100 & <600}
#Command: {type: "command", command: [...string], timeout: *"30s" | string}
#Open: {type: "open", ...}
#Check: #TCP | #HTTP | #Command | #Open
#Service: {
	name:     string
	interval: *"60s" | string
	retries:  *3 | int & >=1 & <=10
	check:    #Check
	tags: [...string]
	owner?: string
	meta: {id: string, host: string}
}
#Host: {
	address!: string
	labels: [=~"^[a-z]+$"]: string
	services: [Name=string]: #Service & {name: Name, meta: {id: Name}}
	ports: [P=string]: {port: P, names: [P, ...string]}
}
hosts: [H=string]: #Host & {services: [string]: meta: host: H}
`;

interface Case {
  readonly name: string;
  /** The user's document (unified with #Root; with `fleet`, written after the FLEET schema). */
  readonly doc: string;
  /** Whether the fast path exports `hosts` itself (the case is then not only a fallback test). */
  readonly fast: boolean;
  readonly fleet?: true;
}

const SVC = `check: {type: "tcp", port: 80}`;

/** Many services with text JSON escapes or UTF-8 for, so that the JSON text spans several chunks. */
function manyServices(n: number): string {
  const odd = ["é", "日本", "😀", '\\"q\\"', "back\\\\slash", "tab\\t", "nl\\n", "\\u0001", "\\u007f"];
  const svcs: string[] = [];
  for (let i = 0; i < n; i++) {
    const o = odd[i % odd.length] as string;
    svcs.push(`"s-${o}-${i}": {${SVC}, tags: ["${o}", "plain-${i}"], interval: "${"x".repeat(i % 40)}"}`);
  }
  return `hosts: {"h-ü": {address: "a", labels: {env: "${"ü".repeat(30_000)}"}, services: {${svcs.join(", ")}}}, h2: {address: "${"y".repeat(100_000)}"}}`;
}

const cases: Case[] = [
  {
    name: "defaults fill a tagged union branch",
    doc: `hosts: h1: {${HOST}, services: s1: check: {type: "tcp", address: "a:1"}}`,
    fast: true,
  },
  {
    name: "user values override defaults, floats keep their text",
    doc: `hosts: h1: {${HOST}, zone: "eu", services: s1: {check: {type: "http", url: "u", interval: "5s", attempts: 2, codes: [200, 301]}, weight: 2.50, level: "high", tags: ["a", "b"]}}`,
    fast: true,
  },
  {
    name: "patterns check labels and values",
    doc: `hosts: h1: {${HOST}, labels: {env: "prod", "__proto__": "x1", tier: "web"}}`,
    fast: true,
  },
  {
    name: "an open definition takes any field",
    doc: `hosts: h1: {${HOST}, services: s: check: {type: "dns", name: "n", server: "1.1.1.1:53", other: {deep: [1, {x: null}]}}}`,
    fast: true,
  },
  {
    name: "lists of definitions, prefix and rest",
    doc: `hosts: h1: {${HOST}, levels: [{contacts: ["a"]}, {contacts: ["b", "c"], threshold: 2}]}`,
    fast: true,
  },
  {
    name: "a field written twice agrees",
    doc: `hosts: h1: {${HOST}, zone: "eu", zone: "eu", services: s: {check: {type: "tcp", address: "x"}}, services: s: {zone: "z"}}`,
    fast: true,
  },
  {
    name: "bytes, big integers and null",
    doc: `hosts: h1: {${HOST}, services: s: {check: {type: "tcp", address: "x"}, raw: 'AB\\x00', big: 123456789012345678901234567890, nothing: null}}`,
    fast: true,
  },
  {
    name: "meta is an open struct of anything plain",
    doc: `hosts: h1: {${HOST}, meta: {a: {b: [1, 2.0, "c", true]}, "#x": 1}}`,
    fast: true,
  },
  {
    name: "a definition with a self reference left alone",
    doc: `hosts: {h1: {${HOST}, services: {a: check: {type: "tcp", address: "x"}, b: check: {type: "http", url: "y"}}}, h2: {${HOST}}}`,
    fast: true,
  },
  {
    name: "a definition with a self reference written to falls back",
    doc: `hosts: h1: {${HOST}, services: s: check: {type: "tcp", address: "x", flap: {high: 0.5, low: 0.2}}}`,
    fast: false,
  },
  {
    name: "a self reference violated",
    doc: `hosts: h1: {${HOST}, services: s: check: {type: "tcp", address: "x", flap: {high: 0.1, low: 0.2}}}`,
    fast: false,
  },
  {
    name: "a field a closed definition does not allow",
    doc: `hosts: h1: {${HOST}, services: s: {check: {type: "tcp", address: "x"}, colour: "red"}}`,
    fast: false,
  },
  { name: "a missing required field", doc: `hosts: h1: {pair: [1, "a"]}`, fast: false },
  {
    name: "an unknown union tag",
    doc: `hosts: h1: {${HOST}, services: s: check: {type: "udp", address: "x"}}`,
    fast: false,
  },
  {
    name: "a union without its tag",
    doc: `hosts: h1: {${HOST}, services: s: check: {address: "x"}}`,
    fast: false,
  },
  {
    name: "a value out of bounds",
    doc: `hosts: h1: {${HOST}, services: s: check: {type: "tcp", address: "x", attempts: 0}}`,
    fast: false,
  },
  {
    name: "an int where a float is wanted",
    doc: `hosts: h1: {${HOST}, services: s: {check: {type: "tcp", address: "x"}, weight: 2}}`,
    fast: false,
  },
  {
    name: "a label the pattern refuses",
    doc: `hosts: h1: {${HOST}, labels: {Env: "prod"}}`,
    fast: false,
  },
  { name: "a list too short", doc: `hosts: h1: {${HOST}, pair: [1]}`, fast: false },
  { name: "a list too long", doc: `hosts: h1: {${HOST}, pair: [1, "a", 2]}`, fast: false },
  {
    name: "conflicting values written twice",
    doc: `hosts: h1: {${HOST}, zone: "eu", zone: "us"}`,
    fast: false,
  },
  { name: "an empty required list", doc: `hosts: h1: {${HOST}, levels: [{contacts: []}]}`, fast: false },
  {
    name: "a reference in the document",
    doc: `hosts: h1: {${HOST}, zone: hosts.h2.zone}\nhosts: h2: {${HOST}, zone: "eu"}`,
    fast: false,
  },
  { name: "an optional map with a pattern", doc: `hosts: {}\nextra: {x1: 1, x2: 2}`, fast: true },
  { name: "an optional map refusing a label", doc: `hosts: {}\nextra: {y: 1}`, fast: true },
  {
    name: "quoted labels that look like definitions or hidden fields",
    doc: `hosts: {"_h": {${HOST}, labels: {"_x": "a"}}, "#h": {${HOST}}}`,
    fast: true,
  },
  {
    name: "fleet: a pattern alias names services, regexp labels, lists",
    doc: `hosts: {h1: {address: "a", labels: {env: "prod"}, services: {web: {${SVC}, tags: ["x"]}, "my-db": {check: {type: "command", command: ["c", "-w"]}}}}, "h-2": {address: "b"}}`,
    fast: true,
    fleet: true,
  },
  {
    name: "fleet: the alias value written again agrees",
    doc: `hosts: h1: {address: "a", services: web: {${SVC}, name: "web", meta: {id: "web"}}}`,
    fast: true,
    fleet: true,
  },
  {
    name: "fleet: a conflicting alias value",
    doc: `hosts: h1: {address: "a", services: web: {${SVC}, name: "other"}}`,
    fast: false,
    fleet: true,
  },
  {
    name: "fleet: an alias in a list and in a pattern of a pattern",
    doc: `hosts: h1: {address: "a", ports: {http: {}, "8080": {names: ["8080", "alt"]}}}`,
    fast: true,
    fleet: true,
  },
  {
    name: "fleet: an alias in a list conflicts",
    doc: `hosts: h1: {address: "a", ports: {http: {names: ["https"]}}}`,
    fast: false,
    fleet: true,
  },
  {
    name: "fleet: a label the regexp refuses",
    doc: `hosts: h1: {address: "a", labels: {Env: "prod"}}`,
    fast: false,
    fleet: true,
  },
  {
    name: "fleet: a field the closed service does not allow",
    doc: `hosts: h1: {address: "a", services: web: {${SVC}, colour: "red"}}`,
    fast: false,
    fleet: true,
  },
  {
    name: "fleet: an open branch takes any field, optional fields stay out",
    doc: `hosts: h1: {address: "a", services: web: {check: {type: "open", any: {x: [1]}}, owner: "me"}}`,
    fast: true,
    fleet: true,
  },
  {
    name: "fleet: a missing required field",
    doc: `hosts: h1: {services: web: {${SVC}}}`,
    fast: false,
    fleet: true,
  },
  {
    name: "fleet: a missing union branch field",
    doc: `hosts: h1: {address: "a", services: web: check: {type: "tcp"}}`,
    fast: false,
    fleet: true,
  },
  {
    name: "fleet: wrong types in a list and a scalar",
    doc: `hosts: h1: {address: "a", services: {web: {${SVC}, tags: [1]}, db: {check: {type: "tcp", port: "80"}}}}`,
    fast: false,
    fleet: true,
  },
  {
    name: "fleet: a value out of bounds and a bad URL",
    doc: `hosts: h1: {address: "a", services: {web: {${SVC}, retries: 11}, db: check: {type: "http", url: "ftp://x"}}}`,
    fast: false,
    fleet: true,
  },
  {
    name: "fleet: escapes, UTF-8 and long strings over several chunks of text",
    doc: manyServices(3000),
    fast: true,
    fleet: true,
  },
  {
    name: "fleet: alias forms: shadowed, nested, after the literal, `_` and exact patterns",
    doc: `hosts: {}
x: [A=string]: {[A=string]: {v: A}}
x: {p: {q: {}}}
y: [N=string]: {N: 1, v: N}
y: {a: {}}
z: [N=_]: {n: N}
z: {"a b": {}}
w: [N=!="x"]: {n: N}
w: {a: {}, x: 1}
#S: {name?: string, id!: string, a: *1 | int}
r: [N=string]: #S & {name: N, id: N}
r: {a: {}}
q: [N=string]: ({id: N} & #S) & {a: 2}
q: {b: {}}
g: [N=string]: {n: N, s: [M=string]: {m: M, n: N}}
g: {a: {s: {b: {}, c: {}}}}
#U: {m: {[string]: string}, o: {a?: string, ...}}
u: [N=string]: #U & {m: {self: N}, o: {a: N, zz: N}}
u: {k: {m: {other: "o"}}}`,
    fast: true,
    fleet: true,
  },
  {
    name: "fleet: a pattern value the literal adds a field to that the definition refuses",
    doc: `hosts: {}\n#S: {id: string}\nr: [N=string]: #S & {id: N, extra: N}\nr: {a: {}}`,
    fast: true,
    fleet: true,
  },
  {
    name: "fleet: plans: services of one shape in several hosts take their own names and hosts",
    doc: `hosts: {h1: {address: "a", services: {web: {${SVC}}, db: {${SVC}, tags: ["x"]}}}, h2: {address: "b", services: {web: {${SVC}}, db: {${SVC}, tags: ["y", "z"]}}}, h3: {address: "c", services: {db: {check: {type: "http", url: "https://x"}}}}}`,
    fast: true,
    fleet: true,
  },
  {
    name: "fleet: plans: the same labels choose different union terms",
    doc: `hosts: h1: {address: "a", services: {a: check: {type: "tcp", port: 1}, b: check: {type: "open", port: 1}, c: check: {type: "tcp", port: 2}, d: check: {type: "open", port: "x"}}}`,
    fast: true,
    fleet: true,
  },
  {
    name: "fleet: plans: a later struct of a planned shape has a wrong value",
    doc: `hosts: h1: {address: "a", services: {a: {${SVC}}, b: {${SVC}}, c: check: {type: "tcp", port: "80"}}}`,
    fast: false,
    fleet: true,
  },
  {
    name: "fleet: plans: a later struct of a planned shape has no tag value",
    doc: `hosts: h1: {address: "a", services: {a: {${SVC}}, b: {${SVC}}, c: check: {type: {}, port: 80}}}`,
    fast: false,
    fleet: true,
  },
  {
    name: "fleet: plans: a shape whose first struct fails, later ones agree",
    doc: `hosts: {h1: {address: "a", services: {a: check: {type: "tcp", port: 0}, b: {${SVC}}}}, h2: {address: "b", services: {a: {${SVC}}, b: {${SVC}}}}}`,
    fast: false,
    fleet: true,
  },
  {
    name: "fleet: plans: required and optional fields of a repeated shape",
    doc: `hosts: {}\n#S: {id!: string, o?: int, d: *1 | int}\nr: [N=string]: #S & {name: N}\nr: {a: {id: "x"}, b: {id: "y", o: 2}, c: {id: "z"}, e: {id: "w", o: 3}}`,
    fast: true,
    fleet: true,
  },
  {
    name: "fleet: plans: a repeated shape missing a required field",
    doc: `hosts: {}\n#S: {id!: string, d: *1 | int}\nr: [string]: #S\nr: {a: {d: 2}, b: {d: 3}}`,
    fast: true,
    fleet: true,
  },
  {
    name: "fleet: a top-level field the schema does not know stays plain",
    doc: `hosts: {}\nextra: {a: [1, {b: null}]}`,
    fast: true,
    fleet: true,
  },
];

/** Everything a user of the API can observe of a value, as comparable data. */
function observe(make: () => CueValue): unknown {
  const out: Record<string, unknown> = {};
  const a = make();
  const x = a.export();
  out.export = x.ok ? { data: x.data, positions: allPositions(x.data, x.positions) } : x.errors;
  out.json0 = make().toJSON(0);
  out.json2 = make().toJSON(2);
  out.validate = make().validate({ concrete: true });
  out.errors = make().errors;
  const b = make();
  out.jsonAfterErrors = [b.errors, b.toJSON()];
  return JSON.parse(JSON.stringify(out, (_k, v) => (typeof v === "bigint" ? `${v}n` : v)));
}

/** The positions of every field and element of exported data. */
function allPositions(
  data: unknown,
  idx: { of(c: object, k: string | number): readonly unknown[] },
): unknown {
  const out: unknown[] = [];
  const go = (x: unknown): void => {
    if (x === null || typeof x !== "object") return;
    for (const k of Object.keys(x)) {
      out.push([k, idx.of(x, Array.isArray(x) ? Number(k) : k)]);
      go((x as Record<string, unknown>)[k]);
    }
  };
  go(data);
  return out;
}

function unified(doc: string): () => CueValue {
  const r = root();
  return () => r.unify(compile([{ name: "doc.cue", text: doc }]));
}

function maker(c: Case): () => CueValue {
  return c.fleet ? () => compile([{ name: "fleet.cue", text: FLEET + c.doc }]) : unified(c.doc);
}

describe("fast export path", () => {
  afterEach(() => {
    setFastExportForTesting(undefined);
    setReleaseMinForTesting(undefined);
  });
  for (const c of cases) {
    it(c.name, () => {
      setFastExportForTesting(false);
      const want = observe(maker(c));
      setFastExportForTesting(true);
      const got = observe(maker(c));
      assert.deepEqual(got, want);
      // Releasing everywhere changes nothing either.
      setReleaseMinForTesting(1);
      assert.deepEqual(observe(maker(c)), want);
      // The case says whether the fast path answered for `hosts` (which it leaves unevaluated).
      setReleaseMinForTesting(undefined);
      const v = maker(c)();
      v.export();
      const hosts = vertexOf(v)?.v.arcs?.get("hosts");
      assert.equal(hosts?.status === NEW, c.fast, "fast path taken for hosts");
    });
  }
});

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random document for #Root: mostly valid, with the mistakes users make now and then. */
function randomDoc(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const maybe = (p: number, s: string): string => (r() < p ? s : "");
  const fields = (xs: string[]): string => `{${xs.filter((x) => x !== "").join(", ")}}`;
  // Mistakes are rare (a document with one goes the general way as a whole).
  const bad = (good: string, wrong: string): string => (r() < 0.04 ? wrong : good);
  const check = (): string => {
    const [type, req] = pick([
      [`type: "tcp"`, `address: "a:1"`],
      [`type: "http"`, `url: "http://x"`],
      [`type: "dns"`, `name: "n"`],
    ] as const);
    return fields([
      bad(type, pick([`type: "udp"`, ""])),
      bad(req, pick([`address: ""`, `url: 1`, ""])),
      maybe(0.3, bad(pick([`interval: "5s"`, `attempts: 5`]), pick([`interval: "soon"`, `attempts: 0`]))),
      maybe(0.1, pick([`flap: {enabled: false}`, `flap: {low: 0.5}`, `flap: {}`])),
      maybe(0.1, bad(pick([`codes: [200]`, `server: "s"`]), pick([`codes: [99]`, `colour: "red"`]))),
    ]);
  };
  const labels = (): string =>
    fields([maybe(0.5, `env: "prod"`), maybe(0.3, bad(`tier: "web"`, pick([`Tier: "web"`, `tier: "Web"`])))]);
  const service = (): string =>
    fields([
      `check: ${check()}`,
      maybe(0.3, `labels: ${labels()}`),
      maybe(0.2, bad(pick([`weight: 0.5`, `weight: 1e3`]), `weight: 2`)),
      maybe(0.2, bad(`level: "mid"`, `level: "max"`)),
      maybe(0.2, bad(pick([`tags: ["a"]`, `tags: []`]), `tags: [1]`)),
      maybe(0.1, bad(pick([`zone: "z"`, `big: 99999999999999999999`, `nothing: "s"`]), `zone: 3`)),
    ]);
  const host = (): string => {
    const svcs: string[] = [];
    const n = Math.floor(r() * 4);
    for (let i = 0; i < n; i++) svcs.push(`s${i}: ${service()}`);
    if (r() < 0.1 && n > 0) svcs.push(`s0: ${service()}`);
    return fields([
      bad(`address: "10.0.0.1"`, pick([`address: ""`, ""])),
      bad(`pair: [1, "a"]`, `pair: [1]`),
      maybe(
        0.3,
        bad(pick([`zone: "eu"`, `zone: "eu", zone: "eu"`]), pick([`zone: ""`, `zone: "eu", zone: "us"`])),
      ),
      maybe(0.3, `labels: ${labels()}`),
      maybe(
        0.2,
        bad(`levels: [{contacts: ["a"]}, {contacts: ["b"], threshold: 1}]`, `levels: [{contacts: []}]`),
      ),
      maybe(0.2, bad(pick([`parents: ["h0"]`, `meta: {a: [1, {b: null}]}`]), `extra: 1`)),
      `services: ${fields(svcs)}`,
    ]);
  };
  const hosts: string[] = [];
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) hosts.push(`h${i}: ${host()}`);
  return `hosts: ${fields(hosts)}\n${maybe(0.1, bad("extra: {x: 1}", "extra: {y: 1}"))}`;
}

describe("fast export path on random documents", () => {
  afterEach(() => setFastExportForTesting(undefined));
  it("gives what the general evaluator gives", () => {
    const r = rng(20_240_601);
    const schema = root();
    let fastTaken = 0;
    for (let i = 0; i < 150; i++) {
      const doc = randomDoc(r);
      const make = (): CueValue => schema.unify(compile([{ name: "doc.cue", text: doc }]));
      const see = (): unknown => {
        const x = make().export();
        const out = [x.ok ? [x.data, allPositions(x.data, x.positions)] : x.errors, make().toJSON(0)];
        return JSON.parse(JSON.stringify(out, (_k, v) => (typeof v === "bigint" ? `${v}n` : v)));
      };
      setFastExportForTesting(false);
      const want = see();
      setFastExportForTesting(true);
      assert.deepEqual(see(), want, doc);
      const v = make();
      v.export();
      if (vertexOf(v)?.v.arcs?.get("hosts")?.status === NEW) fastTaken++;
    }
    // Most documents are valid and go the fast way; the others exercise giving up.
    assert.ok(fastTaken > 20 && fastTaken < 140, `fast path taken ${fastTaken} times`);
  });
});

/** A random document in the FLEET schema's shape: pattern aliases, regexp labels, lists. */
function randomFleet(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const maybe = (p: number, s: string): string => (r() < p ? s : "");
  const fields = (xs: string[]): string => `{${xs.filter((x) => x !== "").join(", ")}}`;
  const bad = (good: string, wrong: string): string => (r() < 0.04 ? wrong : good);
  const check = (): string =>
    pick([
      () =>
        fields([
          `type: "tcp"`,
          bad(`port: ${1 + Math.floor(r() * 9000)}`, pick([`port: 0`, `port: "80"`, ""])),
        ]),
      () => fields([`type: "http"`, bad(`url: "https://x"`, `url: "ftp://x"`), maybe(0.3, `status: 301`)]),
      () =>
        fields([`type: "command"`, bad(`command: ["c", "-w"]`, `command: [1]`), maybe(0.2, `timeout: "1s"`)]),
      () => fields([`type: "open"`, maybe(0.5, `extra: {a: [1, null]}`)]),
      () => fields([bad(`type: "tcp"`, `type: "udp"`), `port: 22`]),
    ])();
  const service = (name: string): string =>
    fields([
      `check: ${check()}`,
      maybe(0.2, bad(`name: "${name}"`, `name: "other"`)),
      maybe(0.2, bad(`interval: "5s"`, `interval: 5`)),
      maybe(0.2, bad(`retries: 4`, `retries: 11`)),
      maybe(0.3, bad(pick([`tags: ["a"]`, `tags: []`]), `tags: [1]`)),
      maybe(0.1, bad(`owner: "me"`, `colour: "red"`)),
      maybe(0.1, bad(`meta: {id: "${name}"}`, `meta: {id: "x"}`)),
    ]);
  const host = (): string => {
    const svcs: string[] = [];
    const n = Math.floor(r() * 4);
    for (let i = 0; i < n; i++) {
      const name = pick(["web", "db", '"my-svc"', "s1"]);
      svcs.push(`${name}: ${service(name.replaceAll('"', ""))}`);
    }
    return fields([
      bad(`address: "10.0.0.1"`, ""),
      maybe(
        0.4,
        `labels: ${fields([maybe(0.5, `env: "prod"`), maybe(0.3, bad(`tier: "web"`, `Tier: "web"`))])}`,
      ),
      maybe(0.2, `ports: {http: {}, "8080": ${bad(`{names: ["8080", "alt"]}`, `{names: ["80"]}`)}}`),
      `services: ${fields(svcs)}`,
    ]);
  };
  const hosts: string[] = [];
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) hosts.push(`${pick(["h1", '"h-2"', "h3"])}: ${host()}`);
  return `hosts: ${fields(hosts)}\n`;
}

describe("fast export path on random fleet documents", () => {
  afterEach(() => {
    setFastExportForTesting(undefined);
    setReleaseMinForTesting(undefined);
  });
  it("gives what the general evaluator gives", () => {
    const r = rng(20_250_301);
    let fastTaken = 0;
    for (let i = 0; i < 120; i++) {
      const doc = randomFleet(r);
      const make = (): CueValue => compile([{ name: "fleet.cue", text: FLEET + doc }]);
      const see = (): unknown => {
        const x = make().export();
        const out = [x.ok ? [x.data, allPositions(x.data, x.positions)] : x.errors, make().toJSON(0)];
        return JSON.parse(JSON.stringify(out, (_k, v) => (typeof v === "bigint" ? `${v}n` : v)));
      };
      setFastExportForTesting(false);
      const want = see();
      setFastExportForTesting(true);
      assert.deepEqual(see(), want, doc);
      setReleaseMinForTesting(i % 2 === 0 ? 1 : undefined);
      assert.deepEqual(see(), want, doc);
      setReleaseMinForTesting(undefined);
      const v = make();
      v.export();
      if (vertexOf(v)?.v.arcs?.get("hosts")?.status === NEW) fastTaken++;
    }
    assert.ok(fastTaken > 20 && fastTaken < 110, `fast path taken ${fastTaken} times`);
  });
});

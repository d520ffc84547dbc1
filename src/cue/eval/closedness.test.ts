import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile, inspect } from "../index.js";
import { type EvalCase, evalCases } from "./eval-cases.case.js";

/**
 * Closedness through embedding, pattern constraints and `close()` (issue 31): fields a closed
 * struct does not allow are "field not allowed" errors, never silently accepted.
 */

const Ports = '#Low: [<="p"]: int\n#High: [>="h"]: int\n';

const cases: EvalCase[] = [
  {
    name: "a struct that only embeds #A & #B allows what both allow",
    src: `${Ports}ports: {#Low & #High}\nweb: ports & {http: 80, admin: 9000}`,
    err: { path: "web.admin", code: "eval", msg: "field not allowed" },
  },
  {
    name: "a struct that only embeds #A & #B, a field both allow",
    src: `${Ports}ports: {#Low & #High}\nweb: ports & {http: 80}`,
    json: '{"ports":{},"web":{"http":80}}',
  },
  {
    name: "a struct that only embeds #A & #B, below the struct",
    src: '#Low: s: [<="p"]: int\n#High: s: [>="h"]: int\nports: {#Low & #High}\nweb: ports & {s: admin: 1}',
    err: { path: "web.s.admin", code: "eval", msg: "field not allowed" },
  },
  {
    name: "two embeddings allow what either allows",
    src: `${Ports}ports: {#Low, #High}\nweb: ports & {http: 80, admin: 9000, zz: 1}`,
    json: '{"ports":{},"web":{"http":80,"admin":9000,"zz":1}}',
  },
  {
    name: "a struct embedding a definition refuses nested fields only another definition gives",
    src: '#Base: {svc: {extra: 1, ...}, ...}\n#Tag: tag: "x"\nweb: #Base & {#Tag, svc: port: 80}',
    err: { path: "web.svc.extra", code: "eval", msg: "field not allowed" },
  },
  {
    name: "a struct embedding a definition allows nested fields it declares itself",
    src: '#Base: {svc: {extra: 1, ...}, ...}\n#Tag: tag: "x"\nweb: #Base & {#Tag, svc: {port: 80, extra: 1}}',
    json: '{"web":{"svc":{"extra":1,"port":80},"tag":"x"}}',
  },
  {
    name: "a struct embedding a definition keeps nested fields given beside it",
    src: '#Tag: tag: "x"\nweb: {#Tag, svc: port: 80}\nweb: svc: extra: 1',
    json: '{"web":{"tag":"x","svc":{"port":80,"extra":1}}}',
  },
  {
    name: "below a field a struct embedding a definition, reached through a definition, does not declare: unsupported",
    src: '#Base: {svc: [string]: {...}, ...}\n#Tag: tag: "x"\n#Web: #Base & {#Tag, svc: main: {}}\nweb: #Web & {svc: aux: host: "h"}',
    err: { path: "web.svc.aux.host", code: "unsupported", msg: "unsupported: fields below a field" },
  },
  {
    name: "below a field an open struct of the other definition allows: unsupported",
    src: '#Base: {svc: {...}, ...}\n#Tag: tag: "x"\n#Web: #Base & {#Tag, svc: main: {}}\nweb: #Web & {svc: aux: host: "h"}',
    err: { path: "web.svc.aux.host", code: "unsupported", msg: "unsupported: fields below a field" },
  },
  {
    name: "below a field a struct embedding a definition declares: a value",
    src: '#Base: {svc: [string]: {...}, ...}\n#Tag: tag: "x"\n#Web: #Base & {#Tag, svc: main: {}}\nweb: #Web & {svc: main: {}}',
    json: '{"web":{"svc":{"main":{}},"tag":"x"}}',
  },
  {
    name: "below a field a definition's struct without an embedding does not declare: a value",
    src: '#Base: {svc: [string]: {...}, ...}\n#Web: #Base & {svc: main: {}}\nweb: #Web & {svc: aux: host: "h"}',
    json: '{"web":{"svc":{"main":{},"aux":{"host":"h"}}}}',
  },
  {
    name: "a definition whose body embeds a definition refuses a field it does not declare",
    src: '#Tag: tag: "x"\n#Web: {#Tag, svc: main: {}}\nweb: #Web & {svc: aux: host: "h"}',
    err: { path: "web.svc.aux", code: "eval", msg: "field not allowed" },
  },
  {
    name: "a field of a definition declared _ | close({…}) takes fields its struct lacks",
    src: "#Svc: {\n\t_base: port: 80\n\t_base: _ | close({tls!: bool})\n\tweb: _base & {tls: true}\n}\ns: #Svc",
    json: '{"s":{"web":{"port":80,"tls":true}}}',
  },
  {
    name: "a field of a definition declared _ takes fields its struct lacks",
    src: "#Svc: {\n\t_base: port: 80\n\t_base: _\n\tweb: _base & {tls: true}\n}\ns: #Svc",
    json: '{"s":{"web":{"port":80,"tls":true}}}',
  },
  {
    name: "a close() inside an embedded close() allows what the embedding struct declares there",
    src: 'svc: {\n\tclose({tls?: close({cert?: string})})\n\ttls: key: "k"\n}',
    json: '{"svc":{"tls":{"key":"k"}}}',
  },
  {
    name: "a close() inside a close() embedded two levels down allows the embedding struct's fields",
    src: 'svc: {\n\t{{close({tls?: close({cert?: string})})}}\n\ttls: key: "k"\n}',
    json: '{"svc":{"tls":{"key":"k"}}}',
  },
  {
    name: "a close() inside an embedded close() refuses a field given beside the embedding struct",
    src: 'svc: {close({tls?: close({cert?: string})})}\nsvc: tls: key: "k"',
    err: { path: "svc.tls.key", code: "eval", msg: "field not allowed" },
  },
  {
    name: "a close() inside a unified close() refuses a field below it",
    src: 'svc: close({tls?: close({cert?: string})})\nsvc: tls: key: "k"',
    err: { path: "svc.tls.key", code: "eval", msg: "field not allowed" },
  },
  {
    name: "a definition an embedded definition refers to allows what the embedding struct declares",
    src: '#Web: tls?: #Tls\n#Tls: cert?: string\nsvc: {\n\t#Web\n\ttls: key: "k"\n}',
    json: '{"svc":{"tls":{"key":"k"}}}',
  },
  {
    name: "a definition a unified definition refers to refuses a field below it",
    src: '#Web: tls?: #Tls\n#Tls: cert?: string\nsvc: #Web & {tls: key: "k"}',
    err: { path: "svc.tls.key", code: "eval", msg: "field not allowed" },
  },
  {
    name: "a disjunction of definitions embedded in a definition keeps the definition's own fields",
    src: '#Plain: {}\n#Tls: {}\n#Svc: {\n\thost: string\n\t#Plain | #Tls\n}\nweb: #Svc & {host: "h"}',
    json: '{"web":{"host":"h"}}',
  },
  {
    name: "a disjunction of definitions embedded in a definition picks the one allowing a field",
    src: '#Plain: port: int\n#Tls: cert: string\n#Svc: {\n\thost: string\n\t#Plain | #Tls\n}\nweb: #Svc & {host: "h", cert: "c"}',
    json: '{"web":{"host":"h","cert":"c"}}',
  },
  {
    name: "a disjunction of definitions embedded in a definition refuses what none allows",
    src: '#Plain: port: int\n#Tls: cert: string\n#Svc: {\n\thost: string\n\t#Plain | #Tls\n}\nweb: #Svc & {host: "h", port: 1, x: 1}',
    err: { path: "web", code: "eval", msg: "errors in empty disjunction" },
  },
  {
    name: "matchN in a definition decides the fields: the definition does not close them",
    src: '#Labels: {\n\tmatchN(1, [{team!: string}])\n\tteam?: string\n}\nl: #Labels & {team: "ops", tier: "web"}',
    json: '{"l":{"team":"ops","tier":"web"}}',
  },
  {
    name: "matchN in a definition still checks its own condition",
    src: '#Labels: {\n\tmatchN(0, [{team: "root"}])\n\tteam?: string\n}\nl: #Labels & {team: "root", tier: "web"}',
    err: { path: "l", code: "eval", msg: "matchN" },
  },
  {
    name: "matchN in a definition leaves a nested definition closed",
    src: '#Svc: {\n\tmatchN(1, [_])\n\ttls: {cert?: string}\n}\ns: #Svc & {tls: key: "k"}',
    err: { path: "s.tls.key", code: "eval", msg: "field not allowed" },
  },
  {
    name: "a reference to a field beside it inside a definition adds no closedness of its own",
    src: "#Svc: {\n\tbase: {port: 80}\n\tweb: base & {tls: true}\n}\ns: #Svc",
    json: '{"s":{"base":{"port":80},"web":{"port":80,"tls":true}}}',
  },
  {
    name: "a field a reference beside it gives is still closed by the enclosing definition",
    src: "#Svc: {\n\tbase: {port: 80}\n\tweb: base & {tls: true}\n}\ns: #Svc & {web: extra: 1}",
    err: { path: "s.web.extra", code: "eval", msg: "field not allowed" },
  },
  {
    name: "a reference that names a definition's field closes like the definition",
    src: "#Svc: base: {port: 80}\nw: #Svc.base & {tls: true}",
    err: { path: "w.tls", code: "eval", msg: "field not allowed" },
  },
];

evalCases("closedness", cases);

/** `inspect.closed` (cue's `Value.IsClosed`) at a path: [document, path, want]. */
const closedRows: readonly (readonly [string, string, boolean])[] = [
  ['#Svc: {host: "h"}\nweb: {#Svc, port: 80}', "web.host", true],
  ['#Svc: {host: "h"}\nweb: {#Svc, port: 80}', "web.port", true],
  ['#Svc: {host: "h"}\nweb: {#Svc, port: 80}', "web", true],
  ['svc: {host: "h"}\nweb: {svc, port: 80}', "web.host", false],
  ["#Svc: {port: 80}", "#Svc.port", true],
  ['web: close({host: "h"})', "web.host", false],
];

describe("inspect.closed", () => {
  for (const [src, path, want] of closedRows) {
    it(`${path} in ${JSON.stringify(src)} is ${want ? "closed" : "open"}`, () => {
      const v = compile([{ name: "in.cue", text: src }]).lookup(path.split("."));
      assert.ok(v !== undefined);
      assert.equal(inspect.closed(v), want);
    });
  }
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PerfDatum } from "../model/check-result.js";
import { formatPerfdata, parsePerfdata } from "./perfdata.js";
import { parsePluginOutput } from "./plugin-output.js";

const p = (
  label: string,
  value: number,
  uom = "",
  warn = "",
  crit = "",
  min?: number,
  max?: number,
): PerfDatum => ({
  label,
  value,
  uom,
  warn,
  crit,
  ...(min === undefined ? {} : { min }),
  ...(max === undefined ? {} : { max }),
});

const outputCases: {
  name: string;
  text: string;
  output: string;
  longOutput: string;
  perfdata: PerfDatum[];
}[] = [
  { name: "status only", text: "OK - all fine\n", output: "OK - all fine", longOutput: "", perfdata: [] },
  { name: "empty", text: "", output: "", longOutput: "", perfdata: [] },
  {
    name: "status and perfdata",
    text: "PING OK - Packet loss = 0%, RTA = 0.80 ms|percent_packet_loss=0 rta=0.80",
    output: "PING OK - Packet loss = 0%, RTA = 0.80 ms",
    longOutput: "",
    perfdata: [p("percent_packet_loss", 0), p("rta", 0.8)],
  },
  {
    // The plugin guidelines' own example.
    name: "long output and perfdata on later lines",
    text:
      "DISK OK - free space: / 3326 MB (56%); | /=2643MB;5948;5958;0;5968\n" +
      "/ 15272 MB (77%);\n" +
      "/boot 68 MB (69%);\n" +
      "/home 69357 MB (27%);\n" +
      "/var/log 819 MB (84%); | /boot=68MB;88;93;0;98\n" +
      "/home=69357MB;253404;253409;0;253414 \n" +
      "/var/log=818MB;970;975;0;980\n",
    output: "DISK OK - free space: / 3326 MB (56%);",
    longOutput: "/ 15272 MB (77%);\n/boot 68 MB (69%);\n/home 69357 MB (27%);\n/var/log 819 MB (84%);",
    perfdata: [
      p("/", 2643, "MB", "5948", "5958", 0, 5968),
      p("/boot", 68, "MB", "88", "93", 0, 98),
      p("/home", 69357, "MB", "253404", "253409", 0, 253414),
      p("/var/log", 818, "MB", "970", "975", 0, 980),
    ],
  },
  {
    name: "quoted labels with escaped quotes, UOMs and ranges",
    text: "OK | 'disk usage /'=12.5%;@80:90;~:95;0;100 'it''s'=3c  time=0.001s;;;0 'a=b'=-4.5e2KB",
    output: "OK",
    longOutput: "",
    perfdata: [
      p("disk usage /", 12.5, "%", "@80:90", "~:95", 0, 100),
      p("it's", 3, "c"),
      p("time", 0.001, "s", "", "", 0),
      p("a=b", -450, "KB"),
    ],
  },
  {
    name: "garbage perfdata items are skipped",
    text: "WARNING: meh | good=1 bad noequals= x=U y=abc 'unterminated=5 later=2",
    output: "WARNING: meh",
    longOutput: "",
    perfdata: [p("good", 1)],
  },
  {
    name: "a line after perfdata starts with a bar",
    text: "OK\nline one\n| a=1 b=2\nc=3;4;5",
    output: "OK",
    longOutput: "line one",
    perfdata: [p("a", 1), p("b", 2), p("c", 3, "", "4", "5")],
  },
  {
    name: "CRLF and decimal comma",
    text: "OK | load=0,5;1;2\r\nmore\r\n",
    output: "OK",
    longOutput: "more",
    perfdata: [p("load", 0.5, "", "1", "2")],
  },
  { name: "only perfdata", text: "|x=1", output: "", longOutput: "", perfdata: [p("x", 1)] },
  {
    name: "non-numeric min/max dropped",
    text: "OK | x=1;;;a;b",
    output: "OK",
    longOutput: "",
    perfdata: [p("x", 1)],
  },
];

describe("parsePluginOutput", () => {
  for (const c of outputCases) {
    it(c.name, () => {
      const got = parsePluginOutput(c.text);
      assert.equal(got.output, c.output);
      assert.equal(got.longOutput, c.longOutput);
      assert.deepEqual(got.perfdata, c.perfdata);
    });
  }

  it("never throws on random garbage", () => {
    const alphabet = "ab'=;|\n \t0123456789.-~@:%cU\r";
    let seed = 7;
    for (let k = 0; k < 2000; k++) {
      let s = "";
      const len = k % 60;
      for (let i = 0; i < len; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        s += alphabet[seed % alphabet.length];
      }
      const got = parsePluginOutput(s);
      for (const d of got.perfdata) assert.ok(Number.isFinite(d.value));
    }
  });
});

const formatCases: { points: PerfDatum[]; text: string }[] = [
  { points: [p("rta", 0.8, "ms", "100", "200", 0)], text: "rta=0.8ms;100;200;0" },
  { points: [p("a b", 1), p("it's", 2, "c")], text: "'a b'=1 'it''s'=2c" },
  { points: [p("x", -1.5, "", "", "", undefined, 10)], text: "x=-1.5;;;;10" },
  { points: [p("x=y", 3, "%", "@1:2")], text: "'x=y'=3%;@1:2" },
  { points: [], text: "" },
];

describe("formatPerfdata", () => {
  for (const c of formatCases) {
    it(`formats ${c.text || "(none)"}`, () => {
      assert.equal(formatPerfdata(c.points), c.text);
      assert.deepEqual(parsePerfdata(c.text), c.points);
    });
  }
});

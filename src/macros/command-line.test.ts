import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runProcess } from "../checks/process/run-process.js";
import {
  buildArgv,
  buildShellCommand,
  CommandLineError,
  commandLineProblem,
  splitWords,
} from "./command-line.js";

let dir = "";
let canary = "";
let victim = "";
before(() => {
  dir = mkdtempSync(join(tmpdir(), "lookout-macro-"));
  canary = join(dir, "pwned");
  // A directory a successful injection would delete.
  victim = join(dir, "victim");
  mkdirSync(victim);
  writeFileSync(join(victim, "keep"), "x");
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Values an attacker might get into a host var, an ack comment or a plugin output. */
const hostile = (): string[] => [
  `; rm -rf ${victim}`,
  `x; rm -rf ${victim} #`,
  `$(rm -rf ${victim})`,
  `; touch ${canary}`,
  `$(touch ${canary})`,
  `\`touch ${canary}\``,
  `'; touch ${canary}; '`,
  `"; touch ${canary}; "`,
  `\\"; touch ${canary}; \\"`,
  `a\nb; touch ${canary}`,
  `x' "y" 'z`,
  "  spaced   out  ",
  "*",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion as a hostile value
  "$HOME ${PATH} $$ $1",
  "-n",
  "back\\slash\\",
  "",
  "'",
  '"',
  "&& touch /nonexistent | cat > /dev/null &",
  "üñí ✓",
];

const splitCases: { line: string; words: string[] }[] = [
  { line: "a b  c", words: ["a", "b", "c"] },
  { line: "  lead trail  ", words: ["lead", "trail"] },
  { line: "'a b' \"c d\" e\\ f", words: ["a b", "c d", "e f"] },
  { line: "x'y'\"z\"w", words: ["xyzw"] },
  { line: "'' \"\"", words: ["", ""] },
  { line: '"a\\"b" "a\\$b" "a\\nb"', words: ['a"b', "a$$b", "a\\nb"] },
  { line: "\\$HOSTNAME$ '$HOSTNAME$'", words: ["$$HOSTNAME$", "$HOSTNAME$"] },
  { line: "a\tb\nc", words: ["a", "b", "c"] },
];

describe("splitWords", () => {
  for (const c of splitCases) {
    it(JSON.stringify(c.line), () =>
      assert.deepEqual(
        splitWords(c.line).map((w) => w.template),
        c.words,
      ),
    );
  }
  for (const bad of ["'open", '"open', "trailing\\", "a 'b\" c"]) {
    it(`rejects ${JSON.stringify(bad)}`, () => assert.throws(() => splitWords(bad), CommandLineError));
  }
});

describe("buildArgv (shell: false)", () => {
  const templates: { line: string; want: (v: string) => string[] }[] = [
    { line: "/usr/bin/printf %s| $X$", want: (v) => ["/usr/bin/printf", "%s|", ...(v === "" ? [] : [v])] },
    { line: "/usr/bin/printf %s| '$X$'", want: (v) => ["/usr/bin/printf", "%s|", v] },
    { line: '/usr/bin/printf %s| "-H $X$"', want: (v) => ["/usr/bin/printf", "%s|", `-H ${v}`] },
    {
      line: "/usr/bin/printf %s| pre$X$post $X$$$",
      want: (v) => ["/usr/bin/printf", "%s|", `pre${v}post`, `${v}$`],
    },
  ];
  for (const t of templates) {
    it(`keeps every hostile value inside its word: ${t.line}`, () => {
      for (const v of hostile()) {
        assert.deepEqual(
          buildArgv(t.line, (n) => (n === "X" ? v : undefined)),
          t.want(v),
          JSON.stringify(v),
        );
      }
    });
  }

  it("drops an unquoted word that expands to nothing, keeps a quoted one", () => {
    const r = (n: string) => (n === "ARG2" ? "" : n === "ARG1" ? "-w" : undefined);
    assert.deepEqual(buildArgv("check_x $ARG1$ $ARG2$ '$ARG2$' $NOPE$", r), ["check_x", "-w", "", "$NOPE$"]);
  });

  it("refuses a line that is empty after expansion", () => {
    assert.throws(() => buildArgv("$ARG1$", () => ""), CommandLineError);
  });

  it("runs hostile values without a shell", async () => {
    for (const v of hostile()) {
      const [file, ...args] = buildArgv("/usr/bin/printf %s '$X$'", (n) => (n === "X" ? v : undefined));
      const r = await runProcess({ file: file as string, args });
      assert.equal(r.stdout, v);
    }
    assert.equal(existsSync(canary), false, "a hostile value ran a command");
    assert.equal(existsSync(join(victim, "keep")), true, "a hostile value deleted files");
  });
});

describe("buildShellCommand (shell: true)", () => {
  // Each template prints its arguments as `arg|`; `want` is what it must print for a value.
  const templates: { line: string; want: (v: string) => string }[] = [
    { line: "printf '%s|' $X$", want: (v) => `${v}|` },
    { line: `printf '%s|' "$X$"`, want: (v) => `${v}|` },
    { line: "printf '%s|' '$X$'", want: (v) => `${v}|` },
    { line: `printf '%s|' "pre $X$ post"`, want: (v) => `pre ${v} post|` },
    { line: "printf '%s|' 'pre $X$ post'", want: (v) => `pre ${v} post|` },
    { line: "printf '%s|' pre$X$post", want: (v) => `pre${v}post|` },
    { line: "printf '%s|' $X$ $X$; printf 'end|'", want: (v) => `${v}|${v}|end|` },
    { line: `printf '%s|' "$(printf '%s' "$X$")"`, want: (v) => `${v}|` },
    { line: `printf '%s|' "a'b" '"' $X$`, want: (v) => `a'b|"|${v}|` },
    { line: "x=`printf '%s' \"$X$\"`; printf '%s|' \"$x\"", want: (v) => `${v}|` },
    { line: `printf '%s|' $((1 + (2 * 3))) "$X$"`, want: (v) => `7|${v}|` },
    { line: "printf '%s|' \\$X$ $$HOME", want: () => "$X$|/nonexistent-home|" },
    { line: `printf '%s|' $NOPE$ "$NOPE$" '$NOPE$' $X$`, want: (v) => `$NOPE$|$NOPE$|$NOPE$|${v}|` },
  ];
  for (const t of templates) {
    it(`no hostile value can inject: ${t.line}`, async () => {
      for (const v of hostile()) {
        const { script, params } = buildShellCommand(t.line, (n) => (n === "X" ? v : undefined));
        assert.ok(!params.some((p) => script.includes(p) && p.includes("touch")), "value inlined in script");
        const r = await runProcess({
          file: "/bin/sh",
          args: ["-c", script, "lookout", ...params],
          env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent-home" },
        });
        assert.equal(r.stderr, "", `stderr for ${JSON.stringify(v)}: ${r.stderr}`);
        assert.equal(r.stdout, t.want(v), `value ${JSON.stringify(v)} with script ${script}`);
      }
      assert.equal(existsSync(canary), false, "a hostile value ran a command");
      assert.equal(existsSync(join(victim, "keep")), true, "a hostile value deleted files");
    });
  }

  it("shares one parameter per macro and leaves unknown macros alone", () => {
    const r = buildShellCommand("echo $A$ '$A$' \"$B$\" $NOPE$ cost$$5", (n) => ({ A: "1", B: "2" })[n]);
    assert.equal(r.script, `echo "\${1}" ''"\${1}"'' "\${2}" '$NOPE$' cost$5`);
    assert.deepEqual(r.params, ["1", "2"]);
  });

  for (const bad of ["echo 'open", 'echo "open']) {
    it(`rejects ${JSON.stringify(bad)}`, () =>
      assert.throws(() => buildShellCommand(bad, () => ""), CommandLineError));
  }
});

describe("commandLineProblem", () => {
  const cases: { line: string; shell: boolean; problem: RegExp | undefined }[] = [
    { line: "$USER1$/check_x -H $HOSTADDRESS$", shell: false, problem: undefined },
    { line: "echo 'a' | tr a b", shell: true, problem: undefined },
    { line: "check_x 'open", shell: false, problem: /unterminated single quote/ },
    { line: 'echo "open', shell: true, problem: /unterminated double quote/ },
    { line: "echo $(date", shell: true, problem: /unterminated \$\( or backtick/ },
    { line: "   ", shell: false, problem: /empty/ },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.line)} shell=${c.shell}`, () => {
      const got = commandLineProblem(c.line, c.shell);
      if (c.problem === undefined) assert.equal(got, undefined);
      else assert.match(got ?? "", c.problem);
    });
  }
});

// The API beyond what the conformance suite compares: frozen results, the error classes,
// materialize and its second activation, load's invoker and base, missingRequirements' options.
import assert from "node:assert/strict";
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { reader } from "./reader.js";

const MAIN = fileURLToPath(new URL("../../../../tests/conformance/builds/main", import.meta.url));
const skip = !existsSync(MAIN) && "not in the skillc repository";
const tmp = mkdtempSync(join(tmpdir(), "skillc-reader-api-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

test("results are frozen plain objects, their arrays too", { skip }, () => {
  const dist = reader.open(MAIN);
  const loaded = dist.load("paria", "deploy", { args: "web prod" });
  assert.ok(Object.isFrozen(loaded) && Object.isFrozen(loaded.files) && Object.isFrozen(loaded.subSkills));
  assert.equal(Object.getPrototypeOf(loaded), Object.prototype);
  assert.throws(() => {
    (loaded as { body: string }).body = "x";
  }, TypeError);
  const meta = dist.skillMeta("deploy");
  assert.ok(Object.isFrozen(meta.frontmatter) && Object.isFrozen(meta.resources[0]));
  const hooks = meta.frontmatter["hooks"] as Record<string, unknown>;
  assert.equal(hooks["big"], 9007199254740993n); // beyond 2^53: exact
  assert.equal(hooks["timeout"], 1.5);
});

test(
  "errors are ReaderErrors named as in Python; UnknownSkill carries the visible commands",
  { skip },
  () => {
    const dist = reader.open(MAIN);
    const err = (() => {
      try {
        dist.load("forge", "always");
      } catch (e) {
        return e;
      }
      return null;
    })();
    assert.ok(
      err instanceof reader.UnknownSkill && err instanceof reader.ReaderError && err instanceof Error,
    );
    assert.equal(err.name, "UnknownSkill");
    assert.equal(err.message, 'no skill "always" for persona "forge"');
    assert.deepStrictEqual(err.suggestions, []);
    assert.deepStrictEqual(err.visible, ["deploy", "mark", "ops", "ops/restart", "threat"]);
    assert.throws(() => dist.catalog("nobody"), reader.UnknownPersona);
    assert.throws(() => dist.resource("paria", "deploy", "../x"), reader.UnknownResource);
    assert.throws(() => dist.readObject("XYZ"), reader.FormatError);
    assert.throws(() => reader.open(join(tmp, "missing")), reader.FormatError);
    assert.throws(() => reader.substitute("$0", [1] as unknown as string[]), reader.ReaderError);
  },
);

test(
  "UnknownSkill names close commands the persona sees, and reads the full list only when asked",
  { skip },
  () => {
    const dist = reader.open(MAIN);
    const caught = (persona: string, command: string): InstanceType<typeof reader.UnknownSkill> => {
      try {
        dist.load(persona, command);
      } catch (e) {
        if (e instanceof reader.UnknownSkill) return e;
        throw e;
      }
      throw new Error(`${command}: no UnknownSkill`);
    };
    const err = caught("forge", "ops:restrat");
    assert.deepStrictEqual(err.suggestions, ["ops/restart"]);
    assert.equal(err.message, 'no skill "ops:restrat" for persona "forge" (did you mean "ops/restart"?)');
    assert.deepStrictEqual(caught("forge", "ops/secrte").suggestions, []); // hidden from forge
    assert.deepStrictEqual(caught("tiny", "ops/secrte").suggestions, ["ops/secret"]);
    let calls = 0;
    const lazy = new reader.UnknownSkill("p", "c", () => (calls++, ["x"]), ["x", "y"]);
    assert.equal(lazy.message, 'no skill "c" for persona "p" (did you mean "x" or "y"?)');
    assert.equal(calls, 0);
    assert.deepStrictEqual([lazy.visible, lazy.visible, calls], [["x"], ["x"], 1]);
  },
);

test(
  "materialize writes SKILL.md and every resource with its executable bit, into an empty folder",
  { skip },
  () => {
    const dist = reader.open(MAIN);
    const dest = join(tmp, "mount", "deploy");
    assert.equal(dist.materialize("paria", "deploy", dest, { args: "web prod" }), dest);
    const skillMd = readFileSync(join(dest, "SKILL.md"), "utf8");
    assert.match(
      skillMd,
      /^---\nname: "deploy"\ndescription: "Deploy a service to an environment."\n---\n\n/,
    );
    assert.ok(statSync(join(dest, "scripts", "run.sh")).mode & 0o100);
    assert.ok(!(statSync(join(dest, "scripts", "check.py")).mode & 0o111));
    assert.deepStrictEqual(
      readFileSync(join(dest, "assets", "logo.bin")),
      Buffer.from(dist.resource("paria", "deploy", "assets/logo.bin")),
    );
    assert.throws(() => dist.materialize("paria", "deploy", dest), /something else/); // another SKILL.md
    assert.throws(
      () => dist.materialize("paria", "deploy", join(tmp, "lone"), { args: "\ud800" }),
      reader.ReaderError,
    );
    assert.ok(!existsSync(join(tmp, "lone")));
    const stub = join(tmp, "stub");
    assert.throws(() => dist.materialize("tiny", "mark", stub), reader.NotInvocable); // not for the model
    assert.ok(!existsSync(stub), "nothing written before the invoker is checked");
    dist.materialize("tiny", "mark", stub, { by: "user" });
    assert.ok(lstatSync(join(stub, "SKILL.md")).isFile());
    assert.ok(!existsSync(join(stub, "scripts")), "a stub persona gets none of the exclusive skill's files");
  },
);

test("a second materialize of the same skill is a no-op (V1's second activation)", { skip }, () => {
  const dist = reader.open(MAIN);
  const dest = join(tmp, "again");
  dist.materialize("paria", "deploy", dest, { args: "42" });
  const stamps = (): string[] =>
    (readdirSync(dest, { recursive: true }) as string[])
      .sort()
      .map((p) => `${p} ${statSync(join(dest, p), { bigint: true }).mtimeNs}`);
  const before = stamps();
  assert.equal(dist.materialize("paria", "deploy", dest, { args: "42" }), dest);
  assert.deepStrictEqual(stamps(), before);
  assert.throws(() => dist.materialize("paria", "deploy", dest, { args: "43" }), /something else/);
});

for (const change of ["extra file", "extra folder", "edited", "mode", "link", "missing"]) {
  test(`a destination holding anything else is refused: ${change}`, { skip }, () => {
    const dist = reader.open(MAIN);
    const dest = dist.materialize("paria", "deploy", join(tmp, `changed-${change.replace(" ", "-")}`));
    const file = join(dest, "scripts", "check.py");
    if (change === "extra file") writeFileSync(join(dest, "scripts", "more.sh"), "x");
    else if (change === "extra folder") mkdirSync(join(dest, "empty"));
    else if (change === "edited") writeFileSync(file, "print(2)\n");
    else if (change === "mode") chmodSync(join(dest, "scripts", "run.sh"), 0o644);
    else if (change === "link") {
      rmSync(file);
      symlinkSync(join(tmp, "elsewhere"), file);
    } else rmSync(file);
    assert.throws(() => dist.materialize("paria", "deploy", dest), /something else/);
  });
}

test("load gives Claude Code's base directory line, from `base` or the handle's root", { skip }, () => {
  const dist = reader.open(MAIN);
  const loaded = dist.load("paria", "deploy", { args: "7", base: "/work/skills/deploy" });
  assert.equal(loaded.base, "/work/skills/deploy");
  assert.ok(loaded.body.startsWith("Base directory for this skill: /work/skills/deploy\n\n"));
  assert.ok(
    reader.renderSkill(loaded).startsWith('<skill_content command="deploy" name="deploy">\nBase directory'),
  );
  assert.equal(reader.renderSkill(loaded, { base: "/other" }), reader.renderSkill(loaded)); // load's stands
  const path = dist.skillMeta("deploy").path; // skills/deploy/SKILL.md
  const rooted = reader.open(MAIN, { root: "/srv/app/" });
  assert.equal(rooted.load("paria", "deploy").base, `/srv/app/${path.slice(0, path.lastIndexOf("/"))}`);
  assert.ok(
    rooted.catalog("paria", { env: reader.EVERYWHERE }).includes(`<location>/srv/app/${path}</location>`),
  );
  assert.equal(
    dist.catalog("paria", { env: reader.EVERYWHERE, root: "/srv/app" }),
    rooted.catalog("paria", { env: reader.EVERYWHERE }),
  ); // a root for one call
  const plain = dist.load("paria", "deploy");
  assert.equal(plain.base, null);
  assert.ok(!plain.body.includes("Base directory"));
  assert.ok(
    reader
      .renderSkill(plain, { base: "/b" })
      .startsWith('<skill_content command="deploy" name="deploy">\nBase directory for this skill: /b\n\n'),
  );
});

test(
  "load's invoker: NotInvocable names who may invoke; a `by` of neither is a ReaderError",
  { skip },
  () => {
    const dist = reader.open(MAIN);
    const refused = (() => {
      try {
        dist.load("tiny", "mark");
      } catch (e) {
        return e;
      }
      return null;
    })();
    assert.ok(refused instanceof reader.NotInvocable && refused instanceof reader.ReaderError);
    assert.deepStrictEqual([refused.by, refused.invokers, refused.name], ["model", ["user"], "NotInvocable"]);
    assert.equal(dist.load("tiny", "mark", { by: "user" }).access, "stub");
    assert.throws(
      () => dist.load("paria", "deploy", { by: "robot" as unknown as "model" }),
      (e: unknown) => e instanceof reader.ReaderError && !(e instanceof reader.NotInvocable),
    );
  },
);

test("missingRequirements searches the PATH of the env it is given, or asks `which`", { skip }, () => {
  const dist = reader.open(MAIN);
  assert.deepStrictEqual(dist.missingRequirements("paria", "mark", { env: { PATH: "" } }), [
    "bin:nmap",
    "env:MARK_KEY",
  ]);
  const found = dist.missingRequirements("paria", "mark", {
    env: { MARK_KEY: "k", constructor: "" },
    which: () => "/bin/nmap",
  });
  assert.deepStrictEqual(found, []);
  assert.deepStrictEqual(dist.missingRequirements("tiny", "mark", { env: {} }), []); // the stub needs nothing
});

test("catalog() reads and checks the persona's catalog once, then serves the text it kept", { skip }, () => {
  const root = join(tmp, "catalog-once");
  cpSync(MAIN, root, { recursive: true });
  const dist = reader.open(root);
  const first = dist.catalog("paria");
  const prompt = JSON.parse(readFileSync(join(root, "_index.json"), "utf8")).personas.paria.prompt as string;
  rmSync(join(root, "objects", prompt.slice(0, 2), prompt)); // a second read would fail
  assert.equal(dist.catalog("paria"), first);
  assert.throws(() => reader.open(root).catalog("paria"), reader.IntegrityError); // a new Dist reads again
});

test("params fill Claude Code's variables; any other key or a non-string is a ReaderError", () => {
  const params = { CLAUDE_SESSION_ID: "s", CLAUDE_EFFORT: "high", CLAUDE_PROJECT_DIR: "/p" };
  const body = "${CLAUDE_SESSION_ID} ${CLAUDE_EFFORT} ${CLAUDE_PROJECT_DIR} \\${CLAUDE_EFFORT} $0";
  assert.equal(reader.substitute(body, null, { params }), "s high /p \\high $0");
  assert.equal(
    reader.substitute(body, "a", { params: {} }),
    "${CLAUDE_SESSION_ID} ${CLAUDE_EFFORT} ${CLAUDE_PROJECT_DIR} \\${CLAUDE_EFFORT} a",
  );
  for (const bad of [{ CLAUDE_SKILL_DIR: "/s" }, { SESSION: "x" }, { CLAUDE_EFFORT: 1 }]) {
    assert.throws(
      () => reader.substitute("x", null, { params: bad as unknown as Record<string, string> }),
      reader.ReaderError,
    );
  }
});

test("Claude Code 2.1.330's rules: what ends $N and $name, escapes, uses, the append", () => {
  const sub = (body: string, args: string | null, names: string[] = ["n"]) =>
    reader.substitute(body, args, { names });
  assert.equal(sub("$1x $1-x $ARGUMENTS_x $01 $n-x $n[0] $nx", "a b"), "$1x b-x a b_x b a-x $n[0] $nx");
  assert.equal(sub("\\$0 \\\\$0 \\\\\\$0 \\$1x \\$nx", "a"), "$0 \\\\a \\\\\\a $1x \\$nx");
  assert.equal(sub("costs $5\n", "a b"), "costs $5\n\n\nARGUMENTS: a b");
  assert.equal(sub("$n", "a b", ["n", "m", "n"]), "a");
  assert.equal(sub("\\$0", null), "\\$0");
  const plain = "no dollar sign";
  assert.equal(reader.substitute(plain, null, { skillDir: "/s" }), plain);
});

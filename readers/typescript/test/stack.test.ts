// Stacks of builds (docs/format.md §16): open()'s tiers, an optional tier that joins when it is
// built, and what a stack refuses. (The conformance suite holds the stack's answers to the Python
// reader's, and its `stack-three-tiers` and `stack-shorten` to one build of the tiers' sources.)
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Tier } from "../src/index.js";
import { reader } from "./reader.js";
import { apply } from "./tamper.js";

const BUILDS = fileURLToPath(new URL("../../../../tests/conformance/builds/", import.meta.url));
const skip = !existsSync(join(BUILDS, "tier-bundled")) && "not in the skillc repository";
const tmp = mkdtempSync(join(tmpdir(), "skillc-reader-stack-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

test("open() checks its tiers", { skip }, () => {
  const bundled = join(BUILDS, "tier-bundled");
  assert.throws(() => reader.open([]), reader.ReaderError);
  assert.throws(() => reader.open([bundled], { root: "/x" }), reader.ReaderError); // each tier has its own
  assert.throws(
    () =>
      reader.open([
        { path: join(tmp, "a"), optional: true },
        { path: join(tmp, "b"), optional: true },
      ]),
    /none of the builds/,
  );
  assert.throws(() => reader.open([{ path: join(tmp, "a") }]), reader.FormatError);
  assert.throws(
    () => reader.open([{ path: bundled, hidden: true } as unknown as Tier]),
    (e: unknown) => e instanceof reader.ReaderError && !(e instanceof reader.FormatError),
  );
  const stack = reader.open([bundled, join(BUILDS, "tier-user")]);
  assert.deepStrictEqual(stack.shadowed(), [{ command: "hello", tier: 0, by: 1 }]);
  assert.throws(() => stack.catalog("default", { root: "/x" }), reader.ReaderError); // each tier has its own
  assert.deepStrictEqual([stack.paths.length, stack.path], [2, bundled]);
  assert.throws(() => reader.open([join(BUILDS, "tier-unsplit"), bundled]), reader.CannotStack);
});

test("an optional tier joins the stack at the next call once it is built", { skip }, () => {
  const bundled = join(tmp, "bundled");
  cpSync(join(BUILDS, "tier-bundled"), bundled, { recursive: true });
  const mine = join(tmp, "home", "dist");
  const dist = reader.open([bundled, { path: mine, optional: true, root: "/home/u/.agent/" }]);
  assert.deepStrictEqual(dist.shadowed(), []);
  const before = dist.allCommands();
  apply(mine, { op: "rebuild", path: "", build: "tier-project" }, BUILDS); // `skillc build` of the tier
  const added = dist.allCommands().filter((c) => !before.includes(c));
  assert.ok(added.length > 0);
  const command = added[0] as string;
  const path = dist.skillMeta(command).path;
  const loaded = dist.load("default", command, {
    by: dist.resolution("default", command).model ? "model" : "user",
  });
  const folder = path.slice(0, path.lastIndexOf("/"));
  assert.equal(loaded.base, `/home/u/.agent/${folder}`);
  assert.ok(loaded.body.startsWith(`Base directory for this skill: /home/u/.agent/${folder}\n\n`));
  rmSync(mine, { recursive: true });
  assert.deepStrictEqual(dist.allCommands(), before); // gone again: the tier is absent
});

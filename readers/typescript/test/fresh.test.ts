// Fresh builds (docs/format.md §6.4): a handle answers from the newest build in its folder, looks at
// the index once a call, never mixes two builds in one call, and `refresh()` forces the look.
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { reader } from "./reader.js";
import { apply } from "./tamper.js";

const BUILDS = fileURLToPath(new URL("../../../../tests/conformance/builds/", import.meta.url));
const skip = !existsSync(join(BUILDS, "main-next")) && "not in the skillc repository";
const tmp = mkdtempSync(join(tmpdir(), "skillc-reader-fresh-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

let copies = 0;
/** A copy of the conformance build `main`, and a function that rebuilds it into `main-next`. */
function mainCopy(): [string, (prune?: boolean) => void] {
  const root = join(tmp, `dist-${copies++}`);
  cpSync(join(BUILDS, "main"), root, { recursive: true });
  return [
    root,
    (prune = false) => apply(root, { op: "rebuild", path: "", build: "main-next", prune }, BUILDS),
  ];
}

const caught = (call: () => unknown): unknown => {
  try {
    call();
  } catch (e) {
    return e;
  }
  return null;
};

test("an open Dist answers from the newest build at its next call", { skip }, () => {
  const [root, rebuild] = mainCopy();
  const dist = reader.open(root);
  const before = [dist.buildHash(), dist.allCommands()];
  assert.ok(caught(() => dist.load("tiny", "fresh")) instanceof reader.UnknownSkill);
  rebuild();
  assert.notEqual(dist.buildHash(), before[0]);
  assert.ok(dist.allCommands().includes("fresh") && !(before[1] as string[]).includes("fresh"));
  assert.equal(dist.buildHash(), reader.open(root).buildHash());
  assert.equal(dist.refresh(), false); // already moved, at the calls above
});

test(
  "one call never mixes two builds: an UnknownSkill's list is read from its call's build",
  { skip },
  () => {
    const [root, rebuild] = mainCopy();
    const dist = reader.open(root);
    const old = dist.skills("tiny", { env: reader.EVERYWHERE }).map((s) => s.command);
    const err = caught(() => dist.load("tiny", "no-such-skill"));
    assert.ok(err instanceof reader.UnknownSkill);
    rebuild(); // after the call, before its list is asked for
    assert.deepStrictEqual(err.visible, old); // without `fresh`, which only the new build has
    assert.ok(dist.skills("tiny", { env: reader.EVERYWHERE }).some((s) => s.command === "fresh")); // the next call
  },
);

test(
  "a build pruned during a call is DistRebuilt, and the next call answers from the new build",
  { skip },
  () => {
    const [root, rebuild] = mainCopy();
    const dist = reader.open(root);
    const err = caught(() => dist.load("forge", "no-such-skill"));
    assert.ok(err instanceof reader.UnknownSkill);
    rebuild(true); // the old build's objects pruned
    const failed = caught(() => err.visible);
    assert.ok(failed instanceof reader.DistRebuilt, String(failed));
    assert.match((failed as Error).message, /rebuilt during the call.*the next call/);
    assert.ok(dist.load("tiny", "fresh").body.length > 0);
  },
);

test("a missing or broken index leaves the build served; refresh() says nothing moved", { skip }, () => {
  const [root, rebuild] = mainCopy();
  const dist = reader.open(root);
  const first = dist.buildHash();
  writeFileSync(join(root, "_index.json"), "{");
  assert.equal(dist.buildHash(), first);
  assert.ok(dist.load("paria", "deploy").body.length > 0);
  unlinkSync(join(root, "_index.json"));
  assert.equal(dist.buildHash(), first);
  assert.equal(dist.refresh(), false);
  rebuild(); // a good index again: the newer build
  assert.equal(dist.refresh(), true);
  assert.notEqual(dist.buildHash(), first);
  assert.equal(dist.refresh(), false);
});

test("a rewritten index with the same bytes is the same build", { skip }, () => {
  const [root] = mainCopy();
  const dist = reader.open(root);
  const first = dist.buildHash();
  apply(root, { op: "write", path: "_index.json", base64: "" }, BUILDS); // another file...
  cpSync(join(BUILDS, "main", "_index.json"), join(root, "_index.json")); // ...the same bytes
  assert.equal(dist.refresh(), false);
  assert.equal(dist.buildHash(), first);
});

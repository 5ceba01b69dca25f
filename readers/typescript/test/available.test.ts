// Run-time availability (docs/format.md §17.2): the catalog and listings for an environment, the
// process's by default; EVERYWHERE is the build as made.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { reader } from "./reader.js";

const MAIN = fileURLToPath(new URL("../../../../tests/conformance/builds/main", import.meta.url));
const skip = !existsSync(MAIN) && "not in the skillc repository";
const tmp = mkdtempSync(join(tmpdir(), "skillc-reader-available-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

test("the process environment is the default", { skip }, () => {
  const bin = join(tmp, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "nmap"), "#!/bin/sh\n");
  chmodSync(join(bin, "nmap"), 0o755);
  const saved = { PATH: process.env["PATH"], MARK_KEY: process.env["MARK_KEY"] };
  const dist = reader.open(MAIN);
  const commands = () => dist.skills("paria").map((s) => s.command);
  try {
    process.env["PATH"] = bin;
    process.env["MARK_KEY"] = "k";
    assert.ok(commands().includes("mark") && !commands().includes("deploy")); // no docker here
    assert.ok(dist.catalog("paria").includes("<command>mark</command>"));
    assert.ok(!dist.catalog("paria").includes("<command>deploy</command>"));
    assert.equal(dist.catalog("paria"), dist.catalog("paria", { env: process.env }));
    delete process.env["MARK_KEY"];
    assert.ok(!commands().includes("mark"));
    assert.deepStrictEqual(
      dist.unavailable("paria").map((u) => u.command),
      ["deploy", "mark"],
    );
    assert.deepStrictEqual(dist.unavailable("paria").find((u) => u.command === "mark")?.missing, [
      "env:MARK_KEY",
    ]);
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  const all = dist.skills("paria", { env: reader.EVERYWHERE }).map((s) => s.command);
  assert.ok(all.includes("mark") && all.includes("deploy"));
  assert.deepStrictEqual(dist.unavailable("paria", { env: reader.EVERYWHERE }), []);
  assert.deepStrictEqual(dist.missingRequirements("paria", "deploy", { env: reader.EVERYWHERE }), []);
});

test("`which` replaces the program search; a wrong env is a ReaderError", { skip }, () => {
  const dist = reader.open(MAIN);
  const everything = dist.catalog("paria", { env: reader.EVERYWHERE });
  const found = { DEPLOY_TOKEN: "t", KUBECONFIG: "k", MARK_KEY: "m" };
  assert.equal(dist.catalog("paria", { env: found, which: (name) => `/bin/${name}` }), everything);
  assert.notEqual(dist.catalog("paria", { env: found, which: () => null }), everything);
  assert.throws(
    () => dist.catalog("paria", { env: "PATH=/bin" as unknown as Record<string, string> }),
    reader.ReaderError,
  );
});

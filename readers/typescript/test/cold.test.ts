// The cold start's design, held by tests (bench/reader_ts_cold.py measures it): open() and catalog()
// run from the entry and the core alone, and V8 accepts the code cache the build wrote.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";

const ENTRY = new URL("../skillc-reader.js", import.meta.url).href;
const MAIN = fileURLToPath(new URL("../../../../tests/conformance/builds/main", import.meta.url));

function inNewProcess(code: string): string {
  return execFileSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8" }).trim();
}

test(
  "open() and catalog() never load the rest of the reader",
  { skip: !existsSync(MAIN) && "no build" },
  () => {
    const loaded = (call: string) =>
      inNewProcess(
        `import { open } from ${JSON.stringify(ENTRY)}; import { createRequire } from "node:module";\n` +
          `const d = open(${JSON.stringify(MAIN)}); ${call};\n` +
          `console.log(Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes("skillc-reader")).length)`,
      );
    assert.equal(loaded(`d.catalog("paria")`), "0");
    assert.equal(loaded(`d.load("paria", "deploy", { args: "web prod" })`), "1"); // substitution is in the rest
  },
);

test("V8 accepts the code cache written at build time", () => {
  const core = new URL("../skillc-reader-core.js", import.meta.url);
  const cache = readFileSync(new URL("../skillc-reader-core.cache", import.meta.url));
  const script = new Script(readFileSync(core, "utf8"), { filename: core.href, cachedData: cache });
  assert.equal(script.cachedDataRejected, false);
});

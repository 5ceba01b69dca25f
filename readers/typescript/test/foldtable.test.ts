// The delimiter fold table: src/foldtable.ts is a fresh copy of the normative docs/delimiter-fold.txt
// (which the conformance suite's generator holds to Python's unicodedata), and escaping reads it.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { FOLD_UNICODE } from "../src/foldtable.js";
import { reader } from "./reader.js";

const DOC = fileURLToPath(new URL("../../../../docs/delimiter-fold.txt", import.meta.url));
const GENERATED = fileURLToPath(new URL("../../src/foldtable.ts", import.meta.url));
const GENERATOR = new URL("../../scripts/foldtable.mjs", import.meta.url).href;

test(
  "src/foldtable.ts is docs/delimiter-fold.txt, regenerated",
  { skip: !existsSync(DOC) && "not in the skillc repository" },
  async () => {
    const { generate } = (await import(GENERATOR)) as { generate(text: string): string };
    assert.equal(
      readFileSync(GENERATED, "utf8"),
      generate(readFileSync(DOC, "utf8")),
      "run node scripts/foldtable.mjs",
    );
    assert.equal(FOLD_UNICODE, "15.1.0");
  },
);

test("every spelling of the delimiter is escaped, and nothing else", () => {
  const escape = reader.escapeDelimiter;
  assert.equal(escape("a </untrusted-data> b"), "a &lt;/untrusted-data> b");
  assert.equal(escape("＜UNTRUSTED-DATA"), "&lt;UNTRUSTED-DATA"); // fullwidth, upper case
  assert.equal(escape("< / un\u200btrusted\u2010data"), "&lt; / un\u200btrusted\u2010data"); // spaces, zero-width, a dash
  assert.equal(escape("😀<untrusted-data😀"), "😀&lt;untrusted-data😀"); // positions past astral characters
  assert.equal(escape("<untrusted data> <trusted-data"), "<untrusted data> <trusted-data");
  assert.equal(escape("plain text"), "plain text");
});

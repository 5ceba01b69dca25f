// Argument splitting: each expectation is what the Python reader's _split gives (shlex.split, and
// str.split() when the quoting does not parse).
import assert from "node:assert/strict";
import { test } from "node:test";
import { pySplit, splitArgs } from "../src/words.js";

const PYTHON: [string, string[]][] = [
  ["a b  c", ["a", "b", "c"]],
  [" lead and trail ", ["lead", "and", "trail"]],
  ["tab\tnew\nline\rcr", ["tab", "new", "line", "cr"]],
  ["'single quoted' x", ["single quoted", "x"]],
  ['"double \\" quote" y', ['double " quote', "y"]],
  ['"keep \\n backslash"', ["keep \\n backslash"]],
  ["it\\'s", ["it's"]],
  ["a\\ b", ["a b"]],
  ["''", [""]],
  ['"" x', ["", "x"]],
  ["a''b", ["ab"]],
  ['unbalanced "quote', ["unbalanced", '"quote']],
  ["trailing\\", ["trailing\\"]],
  ["mixed\"q\"uo't'e", ["mixedquote"]],
  ["nbsp\u00a0and\u3000ideographic", ["nbsp\u00a0and\u3000ideographic"]],
  ["vt\x0bff\x0c", ["vt\x0bff\x0c"]],
  ['"\\\\"', ["\\"]],
  ["'\\\\'", ["\\\\"]],
  ["é 😀", ["é", "😀"]],
];

for (const [text, words] of PYTHON) {
  test(`splitArgs(${JSON.stringify(text)}) is Python's`, () =>
    assert.deepStrictEqual(splitArgs(text), words));
}

test("the fallback splits at Python's white space, Unicode's included", () => {
  assert.deepStrictEqual(pySplit("a\u00a0b\u3000c\x1cd\u2028e \u200bf"), [
    "a",
    "b",
    "c",
    "d",
    "e",
    "\u200bf",
  ]);
  assert.deepStrictEqual(pySplit("  "), []);
});

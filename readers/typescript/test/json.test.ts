// The JSON subset: what the strict parser refuses and keeps, and JSON.parse's quick path giving the
// very same values wherever it is taken.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseJson, quickParse } from "../src/json.js";
import { JsonFloat, MAX_DEPTH, orderedKeys, type JsonValue } from "../src/jsonvalue.js";
import { strictParse } from "../src/strictjson.js";
import { canonical } from "./outcome.js";

const REFUSED = [
  '{"a": 1, "a": 2}',
  '{"a": 1, "\\u0061": 2}',
  "[NaN]",
  "[Infinity]",
  "[-Infinity]",
  "[1e400]",
  '["\\ud800"]',
  '["\\udc00"]',
  '["\\ud800x"]',
  '["\\ud800\\u0041"]',
  "[18446744073709551616]",
  "[-9223372036854775809]",
  "[1] x",
  "\ufeff[1]",
  '["a\tb"]',
  "[01]",
  "[-]",
  "[1,]",
  '{"a":1,}',
  "[.5]",
  "[1.]",
  "'a'",
  "",
  "[\x0c]",
];

for (const text of REFUSED) {
  test(`refused: ${JSON.stringify(text)}`, () => assert.throws(() => parseJson(text), SyntaxError));
}

test("integers: exact beyond 2^53 as bigints, within [-2^63, 2^64); -0 is 0; a fraction or exponent is a float", () => {
  const v = parseJson("[9007199254740993, 18446744073709551615, -9223372036854775808, -0, 1.0, 1e2, 7]");
  assert.deepStrictEqual((v as JsonValue[]).slice(0, 4), [
    9007199254740993n,
    18446744073709551615n,
    -9223372036854775808n,
    0,
  ]);
  assert.ok(Object.is((v as JsonValue[])[3], 0));
  assert.deepStrictEqual((v as JsonValue[]).slice(4), [new JsonFloat(1), new JsonFloat(100), 7]);
});

test("paired surrogate escapes, `__proto__` as an ordinary key, keys in document order", () => {
  const v = strictParse('{"b": "\\ud83d\\ude00", "__proto__": 1, "10": 2, "2": 3}') as Record<
    string,
    JsonValue
  >;
  assert.equal(v["b"], "😀");
  assert.equal(Object.getPrototypeOf(v), null);
  assert.equal(v["__proto__"], 1);
  assert.deepStrictEqual(orderedKeys(v), ["b", "__proto__", "10", "2"]);
});

test("nesting: MAX_DEPTH levels parse, one more is refused, whichever path is taken", () => {
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
  assert.doesNotThrow(() => parseJson(deep(MAX_DEPTH)));
  assert.throws(() => parseJson(deep(MAX_DEPTH + 1)), SyntaxError);
  assert.equal(quickParse(deep(MAX_DEPTH + 1)), undefined);
});

test("the quick path declines what JSON.parse reads differently", () => {
  for (const text of [
    '{"a": 1, "a": 2}',
    "[1.5]",
    "[-0]",
    "[12345678901234567]",
    '["\\ud83d\\ude00"]',
    '{"1": 1}',
    '{\n  "a" :\n 1,\n  "a"\t: 2\n}', // duplicates found by the regex count (no backslash in the text)
    '{"a\\"": 1, "b": 1, "b": 2}', // and by the loop over colons (an escaped quote before a colon)
  ]) {
    assert.equal(quickParse(text), undefined, text);
  }
  assert.deepStrictEqual(quickParse('{"a": [1, "x:", {"b\\"": null}]}'), { a: [1, "x:", { 'b"': null }] });
  assert.deepStrictEqual(quickParse('{\n  "a" :\n {"b"\r\n: [true]}\n}'), { a: { b: [true] } });
});

/** A small deterministic generator of JSON texts, duplicates and numbers of every kind included. */
function* documents(seed: number, count: number): Generator<string> {
  let s = seed;
  const rnd = (n: number) => ((s = (s * 1103515245 + 12345) % 2147483648), s % n);
  const atoms = [
    "1",
    "-0",
    "0",
    "2.5",
    "1e2",
    '"s"',
    '"\\u00e9:"',
    "true",
    "null",
    "123456789012345678",
    "-3",
    '"a\\"b"',
  ];
  const keys = ['"a"', '"b"', '"1x"', '"__proto__"', '"\\u0061"', '"k\\\\"', '"x:"'];
  const value = (d: number): string => {
    const k = rnd(10);
    if (d > 3 || k < 3) return atoms[rnd(atoms.length)] as string;
    const n = rnd(4);
    if (k < 6) return "[" + Array.from({ length: n }, () => value(d + 1)).join(", ") + "]";
    return (
      "{" + Array.from({ length: n }, () => `${keys[rnd(keys.length)]}: ${value(d + 1)}`).join(", ") + "}"
    );
  };
  for (let i = 0; i < count; i++) yield value(0);
}

test("parseJson gives the strict parser's value or error on generated documents", () => {
  let quick = 0;
  for (const text of documents(7, 3000)) {
    let strict: unknown;
    try {
      strict = canonical(strictParse(text));
    } catch {
      assert.throws(() => parseJson(text), SyntaxError, text);
      continue;
    }
    if (quickParse(text) !== undefined) quick++;
    assert.deepStrictEqual(canonical(parseJson(text)), strict, text);
  }
  assert.ok(quick > 100, `the quick path was taken ${quick} times`);
});

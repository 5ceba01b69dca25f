/** The strict JSON parser: every rule of the accepted subset checked character by character
 * (json.ts tries JSON.parse first where that gives the same value). */

import { JsonFloat, KEYS, MAX_DEPTH, type JsonObject, type JsonValue } from "./jsonvalue.js";

export function strictParse(text: string): JsonValue {
  const p = new Parser(text);
  p.space();
  const value = p.value(0);
  p.space();
  if (p.at < text.length) p.fail("extra data after the JSON value");
  return value;
}

const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const PLAIN = /[^"\\\u0000-\u001f]*/y;

class Parser {
  at = 0;
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  fail(what: string): never {
    throw new SyntaxError(`${what} at character ${this.at}`);
  }

  space(): void {
    const t = this.text;
    let c = t.charCodeAt(this.at);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = t.charCodeAt(++this.at);
  }

  value(depth: number): JsonValue {
    const c = this.text[this.at];
    if (c === '"') return this.string();
    if (c === "{") return this.object(depth + 1);
    if (c === "[") return this.array(depth + 1);
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    for (const [word, v] of WORDS) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return v;
      }
    }
    return this.fail("no JSON value");
  }

  object(depth: number): JsonObject {
    if (depth > MAX_DEPTH) this.fail("nested too deep");
    const out: JsonObject = Object.create(null) as JsonObject;
    const keys: string[] = [];
    (out as unknown as { [KEYS]: string[] })[KEYS] = keys;
    this.at++;
    this.space();
    if (this.text[this.at] === "}") {
      this.at++;
      return out;
    }
    for (;;) {
      if (this.text[this.at] !== '"') this.fail("expected a string key");
      const key = this.string();
      this.space();
      if (this.text[this.at] !== ":") this.fail("expected ':'");
      this.at++;
      this.space();
      const v = this.value(depth);
      if (Object.prototype.hasOwnProperty.call(out, key)) this.fail(`duplicate key ${JSON.stringify(key)}`);
      out[key] = v;
      keys.push(key);
      this.space();
      const c = this.text[this.at++];
      if (c === "}") return out;
      if (c !== ",") this.fail("expected ',' or '}'");
      this.space();
    }
  }

  array(depth: number): JsonValue[] {
    if (depth > MAX_DEPTH) this.fail("nested too deep");
    const out: JsonValue[] = [];
    this.at++;
    this.space();
    if (this.text[this.at] === "]") {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth));
      this.space();
      const c = this.text[this.at++];
      if (c === "]") return out;
      if (c !== ",") this.fail("expected ',' or ']'");
      this.space();
    }
  }

  number(): number | bigint | JsonFloat {
    NUMBER.lastIndex = this.at;
    const m = NUMBER.exec(this.text);
    if (m === null) return this.fail("no JSON value");
    this.at += m[0].length;
    const n = Number(m[0]);
    if (m[1] !== undefined || m[2] !== undefined) {
      if (!Number.isFinite(n)) this.fail("a number out of range");
      return new JsonFloat(n);
    }
    if (Number.isSafeInteger(n)) return n === 0 ? 0 : n; // -0 is the integer 0
    const big = BigInt(m[0]);
    if (big < INT_MIN || big >= INT_END) this.fail("an integer out of range");
    return big;
  }

  string(): string {
    const t = this.text;
    let out = "";
    this.at++;
    for (;;) {
      PLAIN.lastIndex = this.at;
      const run = PLAIN.exec(t) as RegExpExecArray;
      out += run[0];
      this.at += run[0].length;
      const c = t[this.at];
      if (c === '"') {
        this.at++;
        return out;
      }
      if (c !== "\\") this.fail(c === undefined ? "unterminated string" : "a control character in a string");
      out += this.escape();
    }
  }

  /** One escape after a backslash; a surrogate must be half of a \uD8xx\uDCxx pair. */
  escape(): string {
    const c = this.text[this.at + 1];
    if (c !== "u") {
      const e = c === undefined ? undefined : ESCAPES[c];
      if (e === undefined) this.fail("an invalid escape");
      this.at += 2;
      return e;
    }
    const unit = this.hex4(this.at + 2);
    this.at += 6;
    if (unit >= 0xdc00 && unit <= 0xdfff) this.fail("a lone surrogate");
    if (unit < 0xd800 || unit > 0xdbff) return String.fromCharCode(unit);
    const low = this.text.startsWith("\\u", this.at) ? this.hex4(this.at + 2) : -1;
    if (low < 0xdc00 || low > 0xdfff) this.fail("a lone surrogate");
    this.at += 6;
    return String.fromCharCode(unit, low);
  }

  hex4(at: number): number {
    const digits = this.text.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) {
      this.at = at;
      this.fail("an invalid \\u escape");
    }
    return parseInt(digits, 16);
  }
}

const INT_MIN = -(2n ** 63n);
const INT_END = 2n ** 64n;

const WORDS: readonly (readonly [string, JsonValue])[] = [
  ["true", true],
  ["false", false],
  ["null", null],
];

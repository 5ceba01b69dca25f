/**
 * Parsing a document of the JSON subset the format allows (jsonvalue.ts says which).
 *
 * The strict parser (strictjson.ts) checks every rule, but in plain JavaScript it costs a cold start
 * and a large shard far more than the native JSON.parse. So JSON.parse goes first whenever it must give
 * the very value the strict parser gives: when the text holds no number JSON.parse reads differently
 * (a fraction or an exponent, which the strict parser keeps as a JsonFloat; a minus sign, for -0; 16
 * digits or more, beyond 2^53), no surrogate escape, no key whose place Object.keys would move (one
 * starting with a digit), no nesting deeper than the strict parser allows, and exactly as many keys
 * as the text writes (JSON.parse keeps one of two duplicate keys). Anything else, and every error,
 * goes to the strict parser.
 */

import { MAX_DEPTH, type JsonObject, type JsonValue } from "./jsonvalue.js";
import { strictParse } from "./strictjson.js";

export function parseJson(text: string): JsonValue {
  return quickParse(text) ?? strictParse(text);
}

// Numbers where a value may start (after `:`, `,`, `[` or at the start), and surrogate escapes.
const RISKY = /(?:^|[:,[])[ \t\n\r]*(?:-|[0-9]+[.eE]|[0-9]{16})|\\u[dD][89a-fA-F]/;

/** JSON.parse's value when it is the strict parser's, else undefined. */
export function quickParse(text: string): JsonValue | undefined {
  if (RISKY.test(text)) return undefined;
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined; // the strict parser says why
  }
  return census(value, 1) === keyEnds(text) ? value : undefined;
}

// A `"` and a `:` past white space: a key's end when no backslash escapes the quote. When no
// backslash does anywhere in the text, the regex engine finds them: the loop over every colon below
// runs in V8's interpreter on a cold start, about five times slower on a requirements document of
// 10,000 skills.
const KEY_END = /"[ \t\n\r]*:/g;
const ESCAPED_KEY_END = /\\"[ \t\n\r]*:/;

/**
 * How many keys the text writes: each `:` that follows, past white space, a `"` no backslash escapes
 * (an odd run of backslashes before it). A string value that starts with a colon counts too: the
 * counts then differ and the strict parser runs. Counted without allocating (a shard may hold a
 * million keys).
 */
function keyEnds(text: string): number {
  if (!ESCAPED_KEY_END.test(text)) {
    let ends = 0;
    KEY_END.lastIndex = 0;
    while (KEY_END.test(text)) ends++; // test() allocates no match: a scavenge costs more than the count
    return ends;
  }
  let written = 0;
  for (let colon = text.indexOf(":"); colon >= 0; colon = text.indexOf(":", colon + 1)) {
    let at = colon - 1;
    while (at >= 0 && isSpace(text.charCodeAt(at))) at--;
    if (at < 0 || text.charCodeAt(at) !== 0x22) continue;
    let slashes = 0;
    while (at - 1 - slashes >= 0 && text.charCodeAt(at - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) written++;
  }
  return written;
}

/** JSON's white space: space, tab, line feed, carriage return. */
function isSpace(unit: number): boolean {
  return unit === 0x20 || unit === 0x09 || unit === 0x0a || unit === 0x0d;
}

/** The number of keys in every object of value, or -1 when it nests deeper than MAX_DEPTH (value
 * itself at `depth`) or has a key starting with a digit. Walked without allocating: it runs on every
 * document a cold start reads. */
function census(value: JsonValue, depth: number): number {
  if (typeof value !== "object" || value === null) return 0;
  if (depth > MAX_DEPTH) return -1;
  let keys = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as JsonValue;
      if (typeof item !== "object" || item === null) continue; // no call for a scalar: most values are
      const n = census(item, depth + 1);
      if (n < 0) return -1;
      keys += n;
    }
    return keys;
  }
  for (const key in value) {
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39) return -1;
    keys++;
    const item = (value as JsonObject)[key] as JsonValue;
    if (typeof item !== "object" || item === null) continue;
    const n = census(item, depth + 1);
    if (n < 0) return -1;
    keys += n;
  }
  return keys;
}

/**
 * The JSON the reader accepts: RFC 8259 text, parsed strictly, and refused (SyntaxError) when it has
 * a duplicate key, a lone surrogate escape, NaN or an infinity. JSON.parse alone would keep the last
 * of two duplicate keys and accept `"\ud800"`; the Python reader refuses both, so this reader does too.
 *
 * Objects come back with a null prototype (a key `__proto__` is an ordinary key). An integer is a
 * number, or a bigint beyond 2^53 (kept exactly; one outside [-2^63, 2^64) is refused); a number
 * written with a fraction or an exponent is a JsonFloat (refused when it overflows), so that the
 * checks can refuse `1.0` where the format wants an integer, as every reader does.
 */

/** Where the strict parser records an object's keys in document order. */
export const KEYS = Symbol("keys");

export type JsonValue = null | boolean | number | bigint | string | JsonFloat | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** The keys of a parsed object in the order the document wrote them (Object.keys would put
 * integer-like keys first): where the order decides which of two damaged objects is read first. */
export function orderedKeys(obj: JsonObject): readonly string[] {
  return (obj as unknown as { [KEYS]?: string[] })[KEYS] ?? Object.keys(obj);
}

/** A number written with a fraction or an exponent (Python's float): never a valid size or count. */
export class JsonFloat {
  readonly value: number;

  constructor(value: number) {
    this.value = value;
  }
}

/** How deep arrays and objects may nest, the top-level value being level 1: a deeper document is
 * refused whole, even when the depth is inside one skill entry (every reader fails the same calls). */
export const MAX_DEPTH = 64;

/** A skill's frontmatter as handed out: a frozen copy with plain numbers (floats unwrapped). */

import { JsonFloat, orderedKeys, type JsonObject, type JsonValue } from "./jsonvalue.js";
import type { FrontmatterValue } from "./records.js";

export function frontmatterValue(fm: JsonObject): { readonly [key: string]: FrontmatterValue } {
  return value(fm) as { readonly [key: string]: FrontmatterValue };
}

function value(v: JsonValue): FrontmatterValue {
  if (v instanceof JsonFloat) return v.value;
  if (Array.isArray(v)) return Object.freeze(v.map(value));
  if (typeof v === "object" && v !== null) {
    // fromEntries defines each key as an own property: `__proto__` stays a key, not a prototype
    return Object.freeze(Object.fromEntries(orderedKeys(v).map((k) => [k, value(v[k] as JsonValue)])));
  }
  return v;
}

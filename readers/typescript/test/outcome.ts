// A call's outcome as the conformance suite writes it (tests/conformance/README.md, "Expected
// outcomes"), and a form of JSON values in which equal values compare equal.
import { JsonFloat, orderedKeys, type JsonObject } from "../src/jsonvalue.js";
import { reader } from "./reader.js";

/** {"result": value} or {"error": class name, "suggestions"?, "visible"?, "invokers"?}, records keyed
 * in snake_case. */
export function outcome(call: () => unknown): unknown {
  try {
    return { result: toJson(call(), true) };
  } catch (err) {
    if (!(err instanceof reader.ReaderError)) return { error: `not a ReaderError: ${String(err)}` };
    if (err instanceof reader.NotInvocable) return { error: err.name, invokers: [...err.invokers] };
    return err instanceof reader.UnknownSkill ? unknownSkill(err) : { error: err.name };
  }
}

/** An UnknownSkill's suggestions, and its visible list asked for after the call (or what asking threw). */
function unknownSkill(err: InstanceType<typeof reader.UnknownSkill>): unknown {
  let visible: unknown;
  try {
    visible = [...err.visible];
  } catch (failed) {
    if (!(failed instanceof reader.ReaderError)) throw failed;
    visible = { error: failed.name };
  }
  return { error: err.name, suggestions: [...err.suggestions], visible };
}

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A result as a JSON value; record fields renamed, but a frontmatter is kept as the index holds it. */
function toJson(value: unknown, records: boolean): unknown {
  if (value instanceof Uint8Array) return { base64: Buffer.from(value).toString("base64") };
  if (Array.isArray(value)) return value.map((v) => toJson(v, records));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        records ? snake(k) : k,
        toJson(v, records && k !== "frontmatter"),
      ]),
    );
  }
  return value;
}

/** A number, by its mathematical value: 2, 2.0 and 2n are one number. */
class Num {
  readonly value: string;

  constructor(n: number | bigint) {
    this.value = typeof n === "bigint" || Number.isInteger(n) ? BigInt(n).toString() : String(n);
  }
}

/** The value with numbers as Num and objects as plain objects, for assert.deepStrictEqual. */
export function canonical(value: unknown): unknown {
  if (value instanceof JsonFloat) return new Num(value.value);
  if (typeof value === "number" || typeof value === "bigint") return new Num(value);
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object" && value !== null) {
    const obj = value as JsonObject;
    return Object.fromEntries(orderedKeys(obj).map((k) => [k, canonical(obj[k])]));
  }
  return value;
}
